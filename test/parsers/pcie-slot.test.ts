import { describe, expect, it } from 'vitest';
import { readSlotLimit } from '../../src/parsers/pcie-slot.js';

describe('readSlotLimit', () => {
  it('reads a dmidecode slot type against the stated port speed', () => {
    const text = 'System Slot Information\n\tDesignation: SLOT4\n\tType: x4 PCI Express 2\n\tCurrent Usage: In Use';
    expect(readSlotLimit(text, 40_000)).toMatchObject({ lanes: 4, gen: 2, slotGbps: 16, portMbps: 40_000 });
    // The same slot under a 10G port carries it.
    expect(readSlotLimit(text, 10_000)).toBeNull();
  });

  it('reads a slot in words, its generation said nearby, and the card speed beside it', () => {
    expect(readSlotLimit('The only free slot is a PCIe x1 slot (Gen 2), so the 10G card sits there.', null)).toMatchObject({
      lanes: 1,
      gen: 2,
      portMbps: 10_000,
    });
    expect(readSlotLimit('主機板只有 PCI-E x1 插槽, 都是 2.0 版本, 用了 10G 網卡', null)).toMatchObject({ lanes: 1, gen: 2 });
  });

  it('stays quiet on advice, on a slot that carries the port, and on slots of different widths', () => {
    expect(readSlotLimit('If you put it in an x4 PCIe slot it would be slow for the 40G NIC.', 40_000)).toBeNull();
    expect(readSlotLimit('The 25G NIC is in a PCIe 3.0 x8 slot.', 25_000)).toBeNull();
    expect(readSlotLimit('Card A is in a PCIe x4 slot, card B in a PCIe x16 slot; both 40G NICs.', 40_000)).toBeNull();
  });
});
