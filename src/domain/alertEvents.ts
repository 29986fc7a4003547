import { ALERT_EVENTS } from './execution';

/**
 * Events that an alert policy raises (docs/alert-policy.md). A destination hears of one only when its
 * `events` list names it, so a configuration written for the spec's three events sends what it did.
 */
const POLICY_EVENTS = ['recovered', 'overrun', 'tooFast', 'suspended'] as const;

/**
 * Events of the slot ledger (docs/slots.md): a slot nothing ran for, a slot whose run started after
 * its grace. Opted into like the policy's.
 */
const SLOT_EVENTS = ['missed', 'late'] as const;

/** Every event a destination may list: the spec's outcomes first, then the policy's, then the ledger's. */
export const DESTINATION_EVENTS = [...ALERT_EVENTS, ...POLICY_EVENTS, ...SLOT_EVENTS] as const;
export type DestinationEvent = (typeof DESTINATION_EVENTS)[number];
