import { describe, expect, it } from 'vitest';
import { describeSchedule, nextRun, periodMs, runsPerDay, scheduleOf, untilNext } from './schedule.js';

const AT = new Date(2026, 10, 26, 12, 0, 10).getTime(); // 12:00:10 local time, as cron patterns are read

describe('Schedule', () => {
  it('is the rule\'s every or its schedule, never both', () => {
    expect(scheduleOf({ every: 30_000 })).toEqual({ everyMs: 30_000 });
    expect(scheduleOf({ schedule: '0 9 * * *' })).toEqual({ cron: '0 9 * * *' });
    expect(() => scheduleOf({})).toThrow('every or schedule');
  });

  it('describes itself as check and the status page print it', () => {
    expect(describeSchedule({ everyMs: 90_000 })).toBe('every 1m30s');
    expect(describeSchedule({ cron: '0 9 * * *' })).toBe('schedule "0 9 * * *"');
  });

  it('counts its runs in a day', () => {
    expect(runsPerDay({ everyMs: 60_000 }, new Date(AT))).toBe(1440);
    expect(runsPerDay({ cron: '0 */10 * * * *' }, new Date(AT))).toBe(144);
    expect(runsPerDay({ cron: '0 9 * * 1' }, new Date(AT))).toBe(0); // Monday only; 26 Nov 2026 is a Thursday
    expect(runsPerDay({ cron: '* * * * * *' }, new Date(AT))).toBe(86_400);
  });

  it('runs next on the wall clock\'s multiple of its interval, not one a timer firing early would take', () => {
    expect(nextRun({ everyMs: 60_000 }, AT)).toBe(new Date(2026, 10, 26, 12, 1, 0).getTime());
    // 0.5 s before a multiple: that one is "now", the next is a whole interval later.
    expect(nextRun({ everyMs: 60_000 }, new Date(2026, 10, 26, 12, 0, 59, 500).getTime())).toBe(new Date(2026, 10, 26, 12, 2, 0).getTime());
    expect(nextRun({ cron: '0 9 * * *' }, AT)).toBe(new Date(2026, 10, 27, 9, 0, 0).getTime());
  });

  it('says how long a run can be awaited, and an interval rule\'s period', () => {
    expect(untilNext({ everyMs: 60_000 }, AT)).toBe(60_000);
    expect(untilNext({ cron: '0 13 * * *' }, AT)).toBe(3_600_000 - 10_000);
    expect(periodMs({ everyMs: 5_000 })).toBe(5_000);
    expect(periodMs({ cron: '0 13 * * *' })).toBeUndefined();
  });
});
