import { describe, expect, it } from 'vitest';
import { statedCpuFrequencyEvidence, statedFlowControlCure, statedMtuEvidence } from '../../src/parsers/prose-remedies.js';

describe('statedFlowControlCure', () => {
  it.each([
    'Our Netgear had 802.3x disabled. After enabling flow control on that port, it works: 940 Mbit/s.',
    'I turned pause frames on at both ends and the stalls are gone, everything is fine now',
    'With FC on at the switch the problem disappeared.',
    'Switched flow control on in the UniFi controller. That fixed it!',
  ])('reads a cure in %j', (prose) => {
    expect(statedFlowControlCure(prose)).toBe(true);
  });

  it.each([
    'Flow control is off on the switch. Copies still crawl at 30 Mbit/s.',
    'I enabled flow control but it did not help; still slow.',
    'Disabling flow control fixed it for us (pause storms from a broken host).',
    'I enabled flow control, it is not good again yet.',
    'No mention of pause here, but after the driver update it works.',
  ])('reads no flow-control cure in %j', (prose) => {
    expect(statedFlowControlCure(prose)).toBe(false);
  });
});

describe('statedMtuEvidence', () => {
  it.each([
    'Lowering the MTU on the tunnel to 1400 fixed it, transfers no longer hang.',
    'After we enabled jumbo frames on the core switch all was OK again.',
    'The fix was clamping the TCP MSS on the router: works now.',
    'All our storage VLANs run jumbo frames (9000), yet the largest ping that gets through is 1472 bytes.',
  ])('reads the frame size as the cause in %j', (prose) => {
    expect(statedMtuEvidence(prose)).toBe(true);
  });

  it.each([
    'MTU is 1500 everywhere. Replacing the cable fixed it.',
    'We use jumbo frames and the largest file we copied was 40 GB without trouble.',
    'Raised the ring size to 4096 and it works.',
    'ping -s 1472 works, so does iperf3.',
  ])('reads no frame-size evidence in %j', (prose) => {
    expect(statedMtuEvidence(prose)).toBe(false);
  });
});

describe('statedCpuFrequencyEvidence', () => {
  it.each([
    'With the powersave governor we get 6 Gbit/s; running a busy loop on the CPUs pushes it to 9.4.',
    'Switching to the performance governor fixed it.',
    'Booting with intel_pstate=disable (acpi-cpufreq) solved the problem for us.',
  ])('reads CPU power management as the cause in %j', (prose) => {
    expect(statedCpuFrequencyEvidence(prose)).toBe(true);
  });

  it.each([
    'The CPU is busy with interrupts on core 0 (ksoftirqd at 100 %), governor ondemand.',
    'Governor is performance on all cores; the rate is still 4 Gbit/s.',
    'Stressing the CPUs made no difference.',
  ])('reads no power-management evidence in %j', (prose) => {
    expect(statedCpuFrequencyEvidence(prose)).toBe(false);
  });
});
