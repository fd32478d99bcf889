/**
 * The cause catalogue's numbering: every rule names one cause (`cause:` in rules/*.yaml) and every
 * evaluation label names causes by the same numbers, so both are checked against this one list.
 * Causes 1–20 are the settings and test-tool faults nicdoctor was built on; 21–25 are faults that
 * show up as events or state outside the NIC's settings (issue 20). The long form of each cause
 * (symptom, detection, numbers, fix, links) is written in docs/, keyed by these numbers.
 */
export const CAUSE_TITLES: Readonly<Record<number, string>> = {
  1: 'PCIe link degraded or too narrow',
  2: 'Single-threaded test tool',
  3: 'iperf3 threads pinned to one CPU',
  4: 'NUMA misplacement',
  5: 'Interrupts concentrated on few CPUs',
  6: 'Too few receive queues in use',
  7: 'Rings too small for the bursts',
  8: 'Interrupt coalescing off or mis-set',
  9: 'Offloads off or broken',
  10: 'Socket buffers too small',
  11: 'MTU mismatch or jumbo frames missing',
  12: 'CPU frequency scaling',
  13: 'SMT siblings sharing the work',
  14: 'Flow control off',
  15: 'Softnet backlog drops or budget exhausted',
  16: 'Link below capability, flapping or with physical errors',
  17: 'Many unpaced streams or congestion control',
  18: 'Not the network',
  19: 'Test-harness artefacts',
  20: 'PCIe MaxPayload or MaxReadReq small',
  21: 'NIC, driver or firmware fault events (transmit timeouts, resets, firmware errors)',
  22: 'PCIe errors reported by AER on the NIC or its upstream port',
  23: 'Optical module rejected, unsupported or out of its thresholds',
  24: 'Kernel table or memory exhausted (conntrack full, socket memory pressure, listen overflows)',
  25: 'Bond or team degraded (a member down, slower, or one flow per member)',
};

export const CAUSE_IDS: readonly number[] = Object.keys(CAUSE_TITLES).map(Number);
export const MAX_CAUSE = Math.max(...CAUSE_IDS);
