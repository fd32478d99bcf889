/**
 * PCIe link arithmetic (CAUSES.md cause 1). Pure functions shared by the pcie.link collector
 * and the pcie-link check.
 */

/** Link speeds the PCIe specification defines, in GT/s (Gen1..Gen6). */
export const PCIE_SPEEDS_GTS = [2.5, 5, 8, 16, 32, 64] as const;

/**
 * Usable Mb/s per lane after line encoding: the kernel's PCIE_SPEED2MBS_ENC (drivers/pci/pci.h),
 * with the kernel's integer arithmetic, so x8 Gen3 gives the 63.008 Gb/s it logs at boot.
 * 8b/10b for Gen1/2, 128b/130b for Gen3-5, flit mode 1:1 for Gen6.
 */
export const PCIE_SPEED2MBS_ENC: Readonly<Record<string, number>> = {
  '2.5': 2000,
  '5': 4000,
  '8': 7876,
  '16': 15753,
  '32': 31507,
  '64': 64000,
};

/**
 * Transaction-layer efficiency: TLP headers, DLLPs and flow control leave about 89 % of the
 * encoded rate for NIC DMA (Intel application notes: 89.8 % for Gen3 x8 posted writes;
 * 256-byte MaxPayload → 8/9). Checks may override it through their options.
 */
export const PCIE_TRANSACTION_EFFICIENCY = 0.89;

/** "Gen3" for 8 GT/s; null for a speed the specification does not define. */
export function generationName(speedGts: number): string | null {
  const index = PCIE_SPEEDS_GTS.findIndex((speed) => speed === speedGts);
  return index >= 0 ? `Gen${index + 1}` : null;
}

/** "Gen2 x1 (5 GT/s)" for messages, or "Gen2 x1" without the rate. */
export function linkLabel(speedGts: number, width: number, withRate = true): string {
  const generation = generationName(speedGts);
  if (!generation) return `${speedGts} GT/s x${width}`;
  return withRate ? `${generation} x${width} (${speedGts} GT/s)` : `${generation} x${width}`;
}

/** Encoded Mb/s per lane for a speed, or null when the speed is not a PCIe speed. */
export function perLaneMbps(speedGts: number): number | null {
  return PCIE_SPEED2MBS_ENC[String(speedGts)] ?? null;
}

/** Link bandwidth after line encoding, in Gb/s (what the kernel logs as "available PCIe bandwidth"). */
export function encodedGbps(speedGts: number, width: number): number | null {
  const lane = perLaneMbps(speedGts);
  return lane === null ? null : (lane * width) / 1000;
}

/** What a NIC can move over the link: encoded bandwidth x transaction efficiency, in Gb/s. */
export function usableGbps(speedGts: number, width: number, efficiency = PCIE_TRANSACTION_EFFICIENCY): number | null {
  const encoded = encodedGbps(speedGts, width);
  return encoded === null ? null : encoded * efficiency;
}

export interface LinkOption {
  speedGts: number;
  generation: string;
  width: number;
  usableGbps: number;
}

const WIDTHS = [1, 2, 4, 8, 16] as const;

/**
 * The narrowest link of each generation (Gen2 and up) whose usable bandwidth carries `needGbps`:
 * 10G → Gen2 x4 / Gen3 x2, 25G → Gen3 x4, 40G → Gen3 x8, 100G → Gen3 x16 / Gen4 x8 (CAUSES.md).
 */
export function minimumLinks(needGbps: number, efficiency = PCIE_TRANSACTION_EFFICIENCY): LinkOption[] {
  const options: LinkOption[] = [];
  for (const speedGts of PCIE_SPEEDS_GTS.slice(1)) {
    const width = WIDTHS.find((candidate) => (usableGbps(speedGts, candidate, efficiency) ?? 0) >= needGbps);
    if (width !== undefined)
      options.push({ speedGts, generation: generationName(speedGts)!, width, usableGbps: usableGbps(speedGts, width, efficiency)! });
  }
  return options;
}

/** "Gen3 x2 or Gen4 x1" for messages: the two oldest generations that suffice. */
export function describeMinimumLink(needGbps: number, efficiency = PCIE_TRANSACTION_EFFICIENCY): string {
  const options = minimumLinks(needGbps, efficiency).slice(0, 2);
  return options.length ? options.map((option) => `${option.generation} x${option.width}`).join(' or ') : `more than Gen6 x16`;
}

/**
 * Functions whose PCIe link registers do not describe their data path, so a "slow" link there
 * is not a fault: the Intel X722 sits inside the Lewisburg PCH (C62x) and reports a token
 * 2.5 GT/s x1 link while its traffic goes over the PCH's uplink to the CPU.
 */
export const INTEGRATED_PCIE_FUNCTIONS: ReadonlyArray<{ vendor: string; devices: readonly string[]; name: string; why: string }> = [
  {
    vendor: '0x8086',
    devices: ['0x37cc', '0x37cd', '0x37ce', '0x37cf', '0x37d0', '0x37d1', '0x37d2', '0x37d3'],
    name: 'Intel X722 (Lewisburg PCH)',
    why: 'it is integrated in the PCH and its reported link is not its data path',
  },
];

export function integratedFunction(vendor: string | null, device: string | null): { name: string; why: string } | null {
  if (!vendor || !device) return null;
  const entry = INTEGRATED_PCIE_FUNCTIONS.find(
    (candidate) => candidate.vendor === vendor.toLowerCase() && candidate.devices.includes(device.toLowerCase()),
  );
  return entry ? { name: entry.name, why: entry.why } : null;
}
