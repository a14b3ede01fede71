import { describe, expect, it } from 'vitest';
import { nextSeen, verdict } from './frozen.js';

const MIN = 60_000;
const epoch = (number: number) => ({ number, startTime: 1_767_225_600, pChainHeight: 21_000_000 });

describe('an L1 tip frozen, quiet or live', () => {
  it('the same epoch for 15 min while the P-Chain moves: frozen when the node\'s next turn is past the wait, quiet when it may build now', () => {
    const seen = nextSeen(undefined, epoch(56), 100, 0);
    const later = nextSeen(seen, epoch(56), 550, 15 * MIN);
    expect(later.sinceSteady).toBe(0);
    expect(verdict(later, 550, 15 * MIN, 15 * MIN, 180)).toEqual({ tip: 'old', why: 'frozen', heldMs: 15 * MIN, pChainMoved: 450 });
    expect(verdict(later, 550, 15 * MIN, 15 * MIN, 3)).toMatchObject({ tip: 'old', why: 'quiet' });
    expect(verdict(later, 550, 15 * MIN, 15 * MIN, undefined)).toMatchObject({ tip: 'old', why: 'unknown' });
    expect(verdict(later, 550, 14 * MIN, 15 * MIN, 180)).toEqual({ tip: 'live' });
  });

  it('a new epoch number starts the count again; a P-Chain standing still, or before Granite (all zeros), is no verdict', () => {
    const seen = nextSeen(nextSeen(undefined, epoch(56), 100, 0), epoch(57), 300, 10 * MIN);
    expect(seen).toMatchObject({ number: 57, sinceSteady: 10 * MIN, proposedThen: 300 });
    expect(verdict(seen, 300, 40 * MIN, 15 * MIN, 9_999)).toEqual({ tip: 'live' });
    const zeros = nextSeen(undefined, epoch(0), 100, 0);
    expect(verdict(zeros, 900, 60 * MIN, 15 * MIN, 9_999)).toEqual({ tip: 'live' });
  });

  it('a steady clock that went back (a restart) starts the count again rather than reading a negative wait', () => {
    const seen = nextSeen(undefined, epoch(56), 100, 50 * MIN);
    expect(nextSeen(seen, epoch(56), 200, 1 * MIN)).toMatchObject({ sinceSteady: 1 * MIN, proposedThen: 200 });
  });
});
