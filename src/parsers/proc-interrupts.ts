import { ParseError } from './parse-error.js';
import { lines } from './text.js';
import { MAX_CPUS } from './cpulist.js';

/** One row of /proc/interrupts. */
export interface InterruptRow {
  /** "35" for a numbered IRQ, "NMI", "LOC", "ERR", ... for the architecture's own rows. */
  id: string;
  /** The IRQ number; null for named rows. */
  irq: number | null;
  /** Per-CPU counts in the order of ProcInterrupts.cpus; empty for global rows (ERR, MIS). */
  counts: number[];
  /** Sum over CPUs (the single value of ERR / MIS). */
  total: number;
  /** Interrupt chip: "IR-PCI-MSI", "IO-APIC", "PCI-MSIX-0000:00:03.0", "GICv3"; null when not printed. */
  chip: string | null;
  /** Hardware IRQ number in the chip's domain ("114688"), printed by kernels since 3.x. */
  hwirq: string | null;
  /** Flow handler / trigger: "edge", "fasteoi", "Level", "Edge". */
  trigger: string | null;
  /** Handler names ("eth0-TxRx-3", "mlx5_comp3@pci:0000:81:00.0"); several on a shared line. */
  actions: string[];
  /** Text after the counts of a named row ("Local timer interrupts"). */
  description: string | null;
  /**
   * The paste ends inside this row: fewer counts than CPUs and nothing after them (a ticket cut
   * short, a terminal scrolled). Its counts are those of the first CPUs only.
   */
  truncated?: boolean;
}

export interface ProcInterrupts {
  /** CPU numbers of the count columns, from the header (offline CPUs are left out, so gaps occur). */
  cpus: number[];
  rows: InterruptRow[];
}

const HEADER = /^\s*(CPU\d+\s*)+$/;
const ROW = /^\s*([0-9A-Za-z]+):(.*)$/;
// Old kernels printed chip and flow handler as one word ("IR-PCI-MSI-edge", "IO-APIC-fasteoi").
const COMBINED_CHIP = /^(.+)-(edge|fasteoi|level|simple|percpu|percpu_devid|bad)$/;

/**
 * Parses /proc/interrupts. The kernel prints, per IRQ: the number, one count per online CPU,
 * the chip name, the hwirq (3.x+), the trigger ("2-edge" on x86, "27 Level" on ARM, fused into
 * the chip name before 3.x), then the action names separated by ", ".
 */
export function parseProcInterrupts(text: string): ProcInterrupts {
  const all = lines(text);
  const headerIndex = all.findIndex((line) => line.trim() !== '');
  if (headerIndex < 0) throw new ParseError('/proc/interrupts is empty');
  const header = all[headerIndex]!;
  if (!HEADER.test(header)) throw new ParseError(`/proc/interrupts: expected a header of CPU columns, got "${header.trim().slice(0, 60)}"`);
  // A mail client wrapping at 72-80 columns breaks a wide header and its rows over several lines:
  // the header's pieces are all CPU columns, a row's pieces carry no "N:" of their own.
  let index = headerIndex + 1;
  let columns = header.trim();
  while (index < all.length && HEADER.test(all[index]!)) columns += ` ${all[index++]!.trim()}`;
  const cpus = columns.split(/\s+/).map((column) => Number(column.slice(3)));
  // A CPU number no kernel can have is a damaged header, not a column to count into.
  const impossible = cpus.find((cpu) => !(cpu < MAX_CPUS));
  if (impossible !== undefined)
    throw new ParseError(
      `/proc/interrupts: CPU column "CPU${columns.split(/\s+/)[cpus.indexOf(impossible)]!.slice(3, 40)}" is beyond CPU ${MAX_CPUS - 1}`,
    );
  const rows: InterruptRow[] = [];
  let pending: { id: string; rest: string } | undefined;
  const flush = () => {
    if (pending) rows.push(parseRow(pending.id, pending.rest, cpus.length));
    pending = undefined;
  };
  for (const line of all.slice(index)) {
    if (line.trim() === '') continue;
    const match = ROW.exec(line);
    if (match) {
      flush();
      pending = { id: match[1]!, rest: match[2]! };
      continue;
    }
    if (pending && continuesRow(pending, line, cpus.length)) {
      pending.rest += ` ${line.trim()}`;
      continue;
    }
    throw new ParseError(`/proc/interrupts: unreadable line "${line.trim().slice(0, 80)}"`);
  }
  flush();
  return { cpus, rows };
}

/** Whether a line without "N:" is the wrapped rest of the row before it: its counts were cut, or its handler name. */
function continuesRow(row: { id: string; rest: string }, line: string, cpuCount: number): boolean {
  const counts = /^(?:\s*\d+(?=\s|$))*/.exec(row.rest)![0].trim();
  const given = counts === '' ? 0 : counts.split(/\s+/).length;
  if (given < cpuCount && /^\s*\d+(?:\s|$)/.test(line)) return true;
  // The counts are whole: only the handler name may follow, alone on its line.
  const descriptor = row.rest.trim().slice(counts.length).trim();
  return /^\d+$/.test(row.id) && descriptor !== '' && descriptor.split(/\s+/).length <= 2 && /^\s*[\w.@:-]+\s*$/.test(line);
}

function parseRow(id: string, rest: string, cpuCount: number): InterruptRow {
  const irq = /^\d+$/.test(id) ? Number(id) : null;
  // Counts are the leading numeric words; take at most one per CPU.
  const counts: number[] = [];
  let remaining = rest;
  while (counts.length < cpuCount) {
    const number = /^\s*(\d+)(?=\s|$)/.exec(remaining);
    if (!number) break;
    counts.push(Number(number[1]));
    remaining = remaining.slice(number[0].length);
  }
  remaining = remaining.trim();
  const total = counts.reduce((sum, count) => sum + count, 0);
  if (irq === null) {
    // ERR and MIS are one global count, not per CPU (on a one-CPU host both read the same).
    const global = counts.length === 1 && cpuCount > 1;
    return {
      id,
      irq,
      counts: global ? [] : counts,
      total,
      chip: null,
      hwirq: null,
      trigger: null,
      actions: [],
      description: remaining || null,
    };
  }
  if (counts.length > 0 && counts.length < cpuCount && remaining === '') {
    // The text stops mid-row (at its end, or where a ticket joins two excerpts of the file): the
    // counts read are real, the rest of the row is not known. The kernel never prints a numbered
    // row without its chip, so such a row is a cut and not a format to refuse.
    return { id, irq, counts, total, chip: null, hwirq: null, trigger: null, actions: [], description: null, truncated: true };
  }
  if (counts.length !== cpuCount) {
    throw new ParseError(`/proc/interrupts: IRQ ${id} has ${counts.length} counts for ${cpuCount} CPUs (truncated line?)`);
  }
  return { id, irq, counts, total, ...parseDescriptor(remaining) };
}

function parseDescriptor(text: string): Pick<InterruptRow, 'chip' | 'hwirq' | 'trigger' | 'actions' | 'description'> {
  if (text === '') return { chip: null, hwirq: null, trigger: null, actions: [], description: null };
  const words = text.split(/\s+/);
  // Some chips have a name of several words ("SiFive PLIC 131 Edge", "GIC-0 27 Level"): the chip
  // runs up to the hwirq that precedes an Edge/Level trigger.
  const chipWords = Math.max(1, multiWordChipLength(words));
  let chip: string = words.slice(0, chipWords).join(' ');
  let hwirq: string | null = null;
  let trigger: string | null = null;
  let next = chipWords;
  const combined = COMBINED_CHIP.exec(chip);
  if (combined) {
    chip = combined[1]!;
    trigger = combined[2]!;
  } else {
    const word = words[next];
    const x86 = word === undefined ? null : /^(\d+)-(\S+)$/.exec(word);
    if (x86) {
      hwirq = x86[1]!;
      trigger = x86[2]!;
      next += 1;
    } else if (word !== undefined && /^\d+$/.test(word)) {
      hwirq = word;
      next += 1;
    }
    const after = words[next];
    if (trigger === null && after !== undefined && (/^(Edge|Level)$/i.test(after) || /^-\S+$/.test(after))) {
      // ARM prints "27 Level"; Xen leaves the hwirq blank and prints "-ioapic-edge".
      trigger = after.replace(/^-/, '');
      next += 1;
    }
  }
  // Action names may hold spaces ("PCIe PME"), so cut the original text, not the words.
  const consumed = words.slice(0, next).join(' ');
  const actionText = text.replace(/\s+/g, ' ').slice(consumed.length).trim();
  const actions =
    actionText === ''
      ? []
      : actionText
          .split(/,\s*/)
          .map((action) => action.trim())
          .filter(Boolean);
  return { chip, hwirq, trigger, actions, description: null };
}

/** How many leading words name the chip when a hwirq and an Edge/Level trigger follow them (0: one word, the default). */
function multiWordChipLength(words: readonly string[]): number {
  // A chip name has a few words at most; look no further.
  for (let index = 2; index < Math.min(words.length - 1, 4); index++) {
    if (/^\d+$/.test(words[index]!) && /^(?:Edge|Level)$/i.test(words[index + 1]!) && !/^\d+$/.test(words[index - 1]!)) return index;
  }
  return 0;
}

/** What identifies a NIC's interrupts in /proc/interrupts. */
export interface NicIdentity {
  name: string;
  driver: string | null;
  pciAddress: string | null;
  /** "virtio2" when the interface sits on a virtio device (its queues are "virtio2-input.0"). */
  virtioDevice: string | null;
}

export type NicIrqRole = 'queue' | 'other';

export interface NicInterruptRow {
  row: InterruptRow;
  /** The action name that tied the row to the NIC (null when found only through msi_irqs). */
  name: string | null;
  role: NicIrqRole;
}

// Vectors for the device rather than for traffic: mailbox, link, flow director, control queues.
const OTHER_VECTOR = /(^|[-_:.@])(misc|config|async|cmd|pages|mgmnt|mgmt|ctrl|control|event|lsc|link|fdir|err)/i;

/** Classifies one action name of a NIC vector. */
export function nicVectorRole(name: string, nic: NicIdentity): NicIrqRole {
  if (name === nic.name) return 'queue'; // demoted to 'other' later when real queue vectors exist
  const stripped = name.split('@')[0]!;
  return OTHER_VECTOR.test(stripped.replace(nic.name, '')) ? 'other' : 'queue';
}

/** Does this action name belong to the NIC? */
export function nicOwnsAction(action: string, nic: NicIdentity): boolean {
  if (action === nic.name || action.startsWith(`${nic.name}-`)) return true;
  // i40e, ice, iavf: "<driver>-<if>-TxRx-N".
  if (nic.driver && action.startsWith(`${nic.driver}-${nic.name}-`)) return true;
  // mlx4/mlx5 name vectors after the PCI function; i40e names its misc vector "i40e-<BDF>:misc".
  if (nic.pciAddress && (action.endsWith(`@pci:${nic.pciAddress}`) || action.includes(`-${nic.pciAddress}:`))) return true;
  if (nic.virtioDevice && action.startsWith(`${nic.virtioDevice}-`)) return true;
  return false;
}

/**
 * The NIC's rows in /proc/interrupts: rows whose action names match the interface (name,
 * `<if>-TxRx-N`, `<driver>-<if>-TxRx-N`, `...@pci:<BDF>`, `virtioN-input.M`) plus the IRQ numbers
 * the PCI function owns (msi_irqs), which catches vectors named before a rename.
 */
export function nicInterruptRows(interrupts: ProcInterrupts, nic: NicIdentity, msiIrqs: readonly number[] = []): NicInterruptRow[] {
  const owned = new Set(msiIrqs);
  const found: NicInterruptRow[] = [];
  for (const row of interrupts.rows) {
    if (row.irq === null) continue;
    const name = row.actions.find((action) => nicOwnsAction(action, nic)) ?? null;
    if (name === null && !owned.has(row.irq) && !continuesQueueVectors(row, found.at(-1))) continue;
    const label = name ?? row.actions[0] ?? null;
    found.push({ row, name, role: label === null ? 'queue' : nicVectorRole(label, nic) });
  }
  // A bare "<if>" vector carries the traffic only when the NIC has no per-queue vectors
  // (single MSI / legacy line); next to "<if>-TxRx-N" it is the link/mailbox vector.
  const hasQueueVectors = found.some((entry) => entry.role === 'queue' && entry.name !== nic.name);
  return found.map((entry) => (entry.name === nic.name && hasQueueVectors ? { ...entry, role: 'other' } : entry));
}

// "<if>-TxRx-N", "<if>-rxtx-N" (vmxnet3), "<if>-rx-N", and the bare-index "<if>-N" of r8125, bnx2
// and other drivers that number their vectors after the interface.
/**
 * A row cut before its name that follows the NIC's previous queue vector by one IRQ number: a
 * device's MSI-X vectors are numbered in a row, so the cut row is the NIC's next queue.
 */
function continuesQueueVectors(row: InterruptRow, previous: NicInterruptRow | undefined): boolean {
  return Boolean(row.truncated && previous && previous.role === 'queue' && previous.name !== null && previous.row.irq === row.irq! - 1);
}

// Queue vectors that carry only transmit completions ("eth0-tx-0", "eth1-tx-3").
const TRANSMIT_VECTOR = /[-_.](?:tx|Tx|TX)[-_.]?\d*$/;

/** Whether a queue vector takes receive interrupts: every queue vector but a transmit-only one. */
export function takesReceive(name: string | null): boolean {
  return name === null || !TRANSMIT_VECTOR.test(name);
}

const QUEUE_VECTOR =
  /^(?:(?:i40e|ice|iavf|ixgbe|ixgbevf|igb|igc|e1000e|fm10k|idpf)-)?([A-Za-z][\w.]{0,14}?)-(?:(?:TxRx|rxtx|RxTx|rx|tx|Rx|Tx|fp|combined)-)?\d+$/;
const BARE_NIC_NAME = /^(?:eth\d+|en[a-z0-9]+|em\d+|p\d+p\d+|bond\d+)$/;

/**
 * Interface names that /proc/interrupts gives vectors to ("eth0-TxRx-3", "i40e-eth1-TxRx-0",
 * "iavf-ens1f0v1-TxRx-0", "enp1s0f0-rx-0", "eth2-0", a bare "eth2" on an MSI vector or a legacy
 * line), in a capture or a pasted fragment.
 */
export function interfaceNamesInInterrupts(text: string): Set<string> {
  const names = new Set<string>();
  const add = (word: string) => {
    const queue = QUEUE_VECTOR.exec(word);
    // A bare-index vector names an interface only when the part before the index does ("eth2-0",
    // not "nvme0q-1" or "xhci_hcd-3").
    if (queue && (/-(?:TxRx|rxtx|RxTx|rx|tx|Rx|Tx|fp|combined)-\d+$/.test(word) || BARE_NIC_NAME.test(queue[1]!))) names.add(queue[1]!);
    else if (BARE_NIC_NAME.test(word)) names.add(word);
  };
  let rows: InterruptRow[] | undefined;
  try {
    // Parsed rows survive what mail does to the text (wrapped rows, lost column alignment).
    rows = parseProcInterrupts(text).rows;
  } catch (error) {
    if (!(error instanceof ParseError)) throw error;
  }
  if (rows) {
    // Every numbered row: a NIC on a legacy (INTx) line is named there as on an MSI vector.
    for (const row of rows) if (row.irq !== null) for (const action of row.actions) add(action.trim().split(/\s+/).at(-1) ?? '');
    return names;
  }
  for (const line of text.split('\n')) {
    if (!/MSI|APIC|PLIC|GIC|Edge|Level/i.test(line)) continue;
    for (const action of (
      line
        .trim()
        .split(/\s{2,}|\t/)
        .at(-1) ?? ''
    ).split(/,\s*/))
      add(action.trim().split(/\s+/).at(-1) ?? '');
  }
  return names;
}
