import { describe, expect, it } from 'vitest';
import { parseEthtoolModule } from '../../src/parsers/ethtool-module.js';
import { ParseError } from '../../src/parsers/parse-error.js';
import { moduleSpeedMbps } from '../../src/domain/module-rate.js';
import { realCapture, realCaptures } from '../helpers/fixtures.js';

describe('parseEthtoolModule', () => {
  it.each(realCaptures('ethtool-module'))('reads the identity of every real capture: %s', (file) => {
    const module = parseEthtoolModule(realCapture(file));
    expect(module.identifier).toMatch(/^(?:SFP|QSFP\+|QSFP28)$/);
    expect(module.vendor).toBeTruthy();
    expect(module.transceiverTypes.length).toBeGreaterThan(0);
  });

  it('reads an SFP+ with no light: readings, thresholds in mW, and the flags it raised', () => {
    const module = parseEthtoolModule(realCapture('ethtool-module/ixgbe-sfp-10g-lr-no-light-1.txt'));
    expect(module).toMatchObject({
      identifier: 'SFP',
      vendor: 'Transition',
      partNumber: 'TN-SFP-10G-LR',
      nominalMbps: 10300,
      diagnostics: true,
    });
    expect(module.readings).toEqual([
      { quantity: 'bias', channel: null, value: 32.066 },
      { quantity: 'txPower', channel: null, value: 0.5547 },
      { quantity: 'rxPower', channel: null, value: 0.0001 },
      { quantity: 'temperature', channel: null, value: 41.05 },
      { quantity: 'voltage', channel: null, value: 3.2768 },
    ]);
    expect(module.thresholds.rxPower).toEqual({ highAlarm: 1.2589, lowAlarm: 0.049, highWarning: 1.122, lowWarning: 0.055 });
    expect(module.thresholds.temperature).toEqual({ highAlarm: 75, lowAlarm: -5, highWarning: 70, lowWarning: 0 });
    expect(module.flagsOn).toEqual([
      { quantity: 'rxPower', side: 'low', level: 'alarm', channel: null },
      { quantity: 'rxPower', side: 'low', level: 'warning', channel: null },
    ]);
  });

  it('reads a module without diagnostics as such, through lines a mail client wrapped', () => {
    const module = parseEthtoolModule(realCapture('ethtool-module/ixgbe-sfp-10g-rj45-nodom-1.txt'));
    expect(module).toMatchObject({ connector: 'RJ45', diagnostics: false, readings: [], thresholds: {} });
  });

  it('reads QSFP lanes ("Channel N" and "Chan N") and per-lane flags', () => {
    const module = parseEthtoolModule(realCapture('ethtool-module/cumulus-qsfp28-sr4-thresholds-1.txt'));
    expect(module.identifier).toBe('QSFP28');
    expect(module.readings.filter((r) => r.quantity === 'rxPower').map((r) => [r.channel, r.value])).toEqual([
      [1, 0.972],
      [2, 0.9798],
      [3, 1.134],
      [4, 1.134],
    ]);
    expect(module.thresholds.bias).toEqual({ highAlarm: 8.5, lowAlarm: 5.492, highWarning: 8, lowWarning: 6 });
    expect(module.flagsImplemented).toBe(true);
    expect(module.flagsOn).toEqual([]);
  });

  it('reads -inf dBm lanes by their mW value (0) and a zero nominal rate as unspecified', () => {
    const module = parseEthtoolModule(realCapture('ethtool-module/mlx4-qsfp-plus-no-flags-1.txt'));
    expect(module.nominalMbps).toBeNull();
    expect(module.flagsImplemented).toBe(false);
    expect(module.readings.find((r) => r.quantity === 'rxPower' && r.channel === 2)?.value).toBe(0);
  });

  it('reads QSFP loss-of-signal lane lists', () => {
    const module = parseEthtoolModule('Identifier : 0x11 (QSFP28)\nRx loss of signal : [ Yes, No, Yes, No ]\n');
    expect(module.rxLossOfSignal).toEqual([1, 3]);
    expect(parseEthtoolModule('Identifier : 0x11 (QSFP28)\nRx loss of signal : None\n').rxLossOfSignal).toEqual([]);
  });

  it.each([
    ['empty output', ''],
    ['another command', 'Settings for eth0:\n\tSpeed: 10000Mb/s\n'],
    ['a hex dump', 'Offset\t\tValues\n------\t\t------\n0x0000:\t\t03 04 07 10 00 00 00 00 00 00 00 06 67 00 00 00\n'],
  ])('refuses %s with a ParseError', (_name, text) => {
    expect(() => parseEthtoolModule(text)).toThrow(ParseError);
  });
});

describe('moduleSpeedMbps', () => {
  it.each([
    ['ethtool-module/ixgbe-sfp-1g-bx-1.txt', 1000],
    ['ethtool-module/sfp-10g-sr-boyang-1.txt', 10_000],
    ['ethtool-module/ixgbe-sfp-10g-lr-no-light-1.txt', 10_000],
    ['ethtool-module/cumulus-qsfp28-sr4-thresholds-1.txt', 100_000],
    ['ethtool-module/mlx4-qsfp-plus-no-flags-1.txt', null],
  ])('%s is a %s Mb/s module', (file, speed) => {
    expect(moduleSpeedMbps(parseEthtoolModule(realCapture(file)))).toBe(speed);
  });
});
