/**
 * Fix operations as text and argv: the shell text reports print (every value from evidence
 * quoted where a shell would expand it) and the argv `nicdoctor fix --apply` runs. Rendering
 * only: the operations are typed data (src/report/fix-operations.ts), never parsed back from text.
 */
import { cpusOfList, ethtoolSettings, ETHTOOL_FLAGS, type ApplicableOperation, type Operation } from '../report/fix-operations.js';
import { shellJoin, shellQuote } from '../util/shell-quote.js';

/** The argv --apply runs (never a shell string). */
export function operationArgv(op: ApplicableOperation): string[] {
  if (op.kind === 'sysctl') return ['sysctl', '-w', `${op.key}=${op.value}`];
  return ['ethtool', ETHTOOL_FLAGS[op.kind].set, op.iface, ...ethtoolSettings(op).flat()];
}

/** A grep pattern as people write it: in double quotes when nothing in it expands there. */
function displayPattern(pattern: string): string {
  return /^[^"$`\\!]*$/.test(pattern) && /[^A-Za-z0-9_@%+=:,./-]/.test(pattern) ? `"${pattern}"` : shellQuote(pattern);
}

/** A shell loop that pins the IRQs round-robin over the CPUs. */
function pinLoop(irqs: readonly number[], cpus: readonly number[]): string {
  return `cpus=(${cpus.join(' ')}); i=0; for irq in ${irqs.join(' ')}; do echo \${cpus[i++ % ${cpus.length}]} > /proc/irq/$irq/smp_affinity_list; done`;
}

/** The shell text reports print; every value from evidence quoted where a shell would expand it. */
export function operationText(op: Operation): string {
  switch (op.kind) {
    case 'sysctl':
    case 'ethtool-features':
    case 'ethtool-channels':
    case 'ethtool-rings':
    case 'ethtool-coalesce':
    case 'ethtool-pause':
      return shellJoin(operationArgv(op));
    case 'rps-cpus':
      return `echo ${op.mask} > ${shellQuote(`/sys/class/net/${op.iface}/queues/rx-${op.queue}/rps_cpus`)}`;
    case 'irq-affinity':
      return pinLoop(op.irqs, cpusOfList(op.cpus) ?? []);
    case 'inspect':
      return `${shellJoin(op.argv)}${op.grep ? ` | grep -${op.grep.ignoreCase ? 'i' : ''}E ${displayPattern(op.grep.pattern)}` : ''}`;
    case 'manual':
      return op.text;
  }
}
