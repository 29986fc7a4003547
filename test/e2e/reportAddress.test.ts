import type { NetworkInterfaceInfo } from 'node:os';
import { addressFacingNodes } from './reportAddress';

const v4 = (address: string, netmask: string, internal = false): NetworkInterfaceInfo => ({
  address,
  netmask,
  family: 'IPv4',
  mac: '00:00:00:00:00:00',
  internal,
  cidr: null,
});

describe('addressFacingNodes: where pods on the nodes reach the suite’s crondeck serve', () => {
  const interfaces = {
    lo: [v4('127.0.0.1', '255.0.0.0', true)],
    eth0: [v4('10.1.2.3', '255.255.255.0')],
    'br-kind': [
      v4('172.18.0.1', '255.255.0.0'),
      {
        ...v4('fc00:f853:ccd:e793::1', 'ffff:ffff:ffff:ffff::'),
        family: 'IPv6' as const,
        scopeid: 0,
      },
    ],
  };

  it('is this machine’s address on the nodes’ network (kind’s bridge)', () => {
    expect(addressFacingNodes(['172.18.0.2', '172.18.0.3'], interfaces)).toBe('172.18.0.1');
  });

  it('is null for nodes on no network of this machine, and never a loopback or the node itself', () => {
    expect(addressFacingNodes(['192.168.49.2'], interfaces)).toBeNull();
    expect(addressFacingNodes(['127.0.0.5'], interfaces)).toBeNull();
    expect(addressFacingNodes(['10.1.2.3'], interfaces)).toBeNull();
    expect(addressFacingNodes(['not-an-ip', '300.1.1.1'], interfaces)).toBeNull();
  });
});
