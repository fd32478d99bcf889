/**
 * `nicdoctor fix --forget`: a state whose interfaces are gone (a VF destroyed, a card swapped,
 * a namespace deleted) can never be reverted, and it blocks every later --apply. --forget drops
 * the entries that cannot apply here any more, after showing them, and keeps the rest for
 * --revert. It changes nothing on the host.
 */
import { existsSync } from 'node:fs';
import { currentHostId } from './host-id.js';
import type { FixState, StateEntry } from './state.js';
import { checkOperation } from './operations.js';

export interface ForgetPlan {
  drop: { entry: StateEntry; reason: string }[];
  keep: StateEntry[];
}

/** The interface an entry changed, when it is an ethtool change (its schema checks the name). */
function interfaceOf(entry: StateEntry): string | null {
  const checked = checkOperation(entry.operation ?? entry.revertOperation);
  return checked.ok && 'iface' in checked.op && typeof checked.op.iface === 'string' ? checked.op.iface : null;
}

const liveInterface = (iface: string) => existsSync(`/sys/class/net/${iface}`);

export function planForget(state: FixState, hostId = currentHostId(), exists: (iface: string) => boolean = liveInterface): ForgetPlan {
  const plan: ForgetPlan = { drop: [], keep: [] };
  for (const entry of state.entries) {
    if (state.hostId !== undefined && state.hostId !== hostId) {
      plan.drop.push({ entry, reason: `saved on another host or network namespace (${state.hostId})` });
      continue;
    }
    const iface = interfaceOf(entry);
    if (iface !== null && !exists(iface)) plan.drop.push({ entry, reason: `${iface} is gone` });
    else plan.keep.push(entry);
  }
  return plan;
}
