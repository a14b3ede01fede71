import { describe, expect, it } from 'vitest';
import { activeValidator, completedValidator, pendingValidator, removedValidator } from '../sim/samples.js';
import { proposedBlock, validator, validatorsPage } from './schemas.js';

const period = { nodeId: 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg', txHash: 'tx1', startTimestamp: 1_700_000_000, endTimestamp: 1_731_536_000 };

describe('validator schema (live shapes)', () => {
  it.each([
    ['active', activeValidator(period)],
    ['completed', completedValidator(period)],
    ['pending', pendingValidator(period)],
    ['removed', removedValidator(period)],
  ])('parses a real-shaped %s validator', (status, sample) => {
    const parsed = validator.parse(sample);
    expect(parsed.validationStatus).toBe(status);
    expect(parsed.endTimestamp).toBe(1_731_536_000);
  });

  it('reads times in milliseconds as seconds and a status in another case as the same status', () => {
    const parsed = validator.parse({ ...activeValidator(period), startTimestamp: 1_700_000_000_000, validationStatus: 'ACTIVE' });
    expect(parsed).toMatchObject({ startTimestamp: 1_700_000_000, endTimestamp: 1_731_536_000, validationStatus: 'active' });
    // Past anything milliseconds can mean, a number is kept as it is: the kind judges it.
    expect(validator.parse({ ...activeValidator(period), endTimestamp: 1e308 }).endTimestamp).toBe(1e308);
    // A block's stamp is kept as sent: block-production reads its unit and says so in the alert.
    expect(proposedBlock.parse({ blockNumber: '7', blockTimestamp: 1_700_000_000_000 }).blockTimestamp).toBe(1_700_000_000_000);
  });

  it('accepts a null geolocation on an active validator', () => {
    expect(validator.parse({ ...activeValidator(period), geolocation: null }).validationStatus).toBe('active');
  });

  it('keeps an unknown status as itself, tolerates unknown fields and keeps only what it reads', () => {
    const parsed = validator.parse({ ...pendingValidator(period), validationStatus: 'exiting', somethingNew: { a: 1 } });
    expect(parsed.validationStatus).toBe('exiting');
    expect(Object.keys(parsed).sort()).toEqual(['amountStaked', 'blsCredentials', 'endTimestamp', 'nodeId', 'startTimestamp', 'subnetId', 'txHash', 'validationStatus']);
    expect(parsed.blsCredentials).toEqual({ publicKey: expect.stringMatching(/^0x[0-9a-f]{96}$/) });
  });

  it('reads blsCredentials.publicKey for node-health, and any other shape of it as absent, never a failed response', () => {
    for (const blsCredentials of [{}, null, 'n/a', { publicKey: 7 }]) {
      const parsed = validator.safeParse({ ...activeValidator(period), blsCredentials });
      expect(parsed.success, JSON.stringify(blsCredentials)).toBe(true);
      expect(parsed.data?.blsCredentials?.publicKey, JSON.stringify(blsCredentials)).toBeUndefined();
    }
  });

  it('reads only its fields: uptimePerformance as a number, or any other shape, never fails a response', () => {
    for (const uptimePerformance of [99.93, { avgUptime: 99.9 }, null, 'n/a']) {
      expect(validator.safeParse({ ...activeValidator(period), uptimePerformance }).success, JSON.stringify(uptimePerformance)).toBe(true);
    }
  });

  it('rejects a known status that lacks a field the rule needs, naming the field', () => {
    const { endTimestamp: _e, ...broken } = activeValidator(period);
    const result = validatorsPage.safeParse({ validators: [broken] });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(['validators', 0, 'endTimestamp']);
  });

  it('rejects a period whose status is not text, naming the field', () => {
    const result = validatorsPage.safeParse({ validators: [{ ...pendingValidator(period), validationStatus: 3 }] });
    expect(result.error?.issues[0]?.path).toEqual(['validators', 0, 'validationStatus']);
  });
});
