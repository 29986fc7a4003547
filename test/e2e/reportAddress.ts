import type { NetworkInterfaceInfo } from 'node:os';

/**
 * The address of this machine that a cluster's nodes can reach: the first IPv4 address of a local
 * interface whose subnet holds one of the nodes' InternalIPs. A kind, k3d or minikube (docker
 * driver) cluster runs its nodes on a bridge network of this machine, so its pods reach the suite's
 * `crondeck serve` there. Null when no interface shares a subnet with a node (a remote cluster:
 * give CRONDECK_E2E_REPORT_URL).
 */
export function addressFacingNodes(
  nodeAddresses: string[],
  interfaces: NodeJS.Dict<NetworkInterfaceInfo[]>,
): string | null {
  const nodes = nodeAddresses.map(ipv4ToNumber).filter((n): n is number => n !== null);
  for (const infos of Object.values(interfaces)) {
    for (const info of infos ?? []) {
      if (info.family !== 'IPv4' || info.internal) continue;
      const address = ipv4ToNumber(info.address);
      const mask = ipv4ToNumber(info.netmask);
      if (address === null || mask === null) continue;
      if (nodes.some((node) => (node & mask) >>> 0 === (address & mask) >>> 0 && node !== address)) {
        return info.address;
      }
    }
  }
  return null;
}

function ipv4ToNumber(text: string): number | null {
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((part) => /^\d{1,3}$/.test(part) && Number(part) <= 255)) {
    return null;
  }
  return parts.reduce((value, part) => value * 256 + Number(part), 0) >>> 0;
}
