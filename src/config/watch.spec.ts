import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../base/clock.js';
import { createLogger } from '../base/log.js';
import type { LoadedConfig } from './load.js';
import { useFakeTime, type FakeTime } from '../../test/helpers/fake-time.js';
import { watchConfig, type ConfigWatcher } from './watch.js';

const log = createLogger('error', false).log;

// The file system's events are real; the debounce's timer runs on fake time, pumped with a
// real turn of the event loop each 10 ms, so the events arrive in between.
describe('config file watch', () => {
  let dir: string;
  let watcher: ConfigWatcher | undefined;
  let time: FakeTime;
  /** Well past the 300 ms debounce. */
  const settle = () => time.advance(800);
  beforeEach(() => {
    time = useFakeTime();
  });
  afterEach(() => {
    watcher?.close();
    time.restore();
    rmSync(dir, { recursive: true, force: true });
  });

  const loaded = (file: string, ruleFiles: string[] = []) => ({ file, ruleFiles, config: { ruleFiles: ['rules/*.yaml'] } }) as unknown as LoadedConfig;

  it('sees an editor’s atomic save (write a new file, rename it over the old) once, and a new rule file', async () => {
    dir = mkdtempSync(join(tmpdir(), 'avawatch-watch-'));
    mkdirSync(join(dir, 'rules'));
    writeFileSync(join(dir, 'avawatch.yaml'), 'ruleFiles: [rules/*.yaml]\n');
    let changes = 0;
    watcher = watchConfig(loaded(join(dir, 'avawatch.yaml')), () => changes++, log, systemClock);
    writeFileSync(join(dir, '.avawatch.yaml.swp'), 'x');
    writeFileSync(join(dir, 'avawatch.yaml.tmp'), 'ruleFiles: [rules/*.yaml]\nlog: {level: debug}\n');
    renameSync(join(dir, 'avawatch.yaml.tmp'), join(dir, 'avawatch.yaml'));
    await settle();
    expect(changes).toBe(1);
    writeFileSync(join(dir, 'rules', 'new.yaml'), 'rules: []\n');
    await settle();
    expect(changes).toBe(2);
    writeFileSync(join(dir, 'notes.txt'), 'not config');
    await settle();
    // A rule file written after it is seen: the notes' event, earlier, was handled too, and counted nothing.
    writeFileSync(join(dir, 'rules', 'later.yaml'), 'rules: []\n');
    await time.until(() => changes >= 3, 'the later rule file');
    await settle();
    expect(changes).toBe(3);
  });

  it('sees a Kubernetes ConfigMap update (the ..data symlink swapped to a new directory)', async () => {
    dir = mkdtempSync(join(tmpdir(), 'avawatch-watch-'));
    mkdirSync(join(dir, '..2026_11_22_01'));
    writeFileSync(join(dir, '..2026_11_22_01', 'avawatch.yaml'), 'ruleFiles: []\n');
    symlinkSync('..2026_11_22_01', join(dir, '..data'));
    symlinkSync('..data/avawatch.yaml', join(dir, 'avawatch.yaml'));
    let changes = 0;
    watcher = watchConfig(loaded(join(dir, 'avawatch.yaml')), () => changes++, log, systemClock);
    mkdirSync(join(dir, '..2026_11_22_02'));
    writeFileSync(join(dir, '..2026_11_22_02', 'avawatch.yaml'), 'ruleFiles: []\nlog: {level: debug}\n');
    symlinkSync('..2026_11_22_02', join(dir, '..data_tmp'));
    renameSync(join(dir, '..data_tmp'), join(dir, '..data'));
    await settle();
    expect(changes).toBe(1);
  });

  it('says on close whether a change was still waiting, so a reload can run it', async () => {
    dir = mkdtempSync(join(tmpdir(), 'avawatch-watch-'));
    writeFileSync(join(dir, 'avawatch.yaml'), 'ruleFiles: []\n');
    let changes = 0;
    const quiet = watchConfig(loaded(join(dir, 'avawatch.yaml')), () => changes++, log, systemClock);
    expect(quiet.close()).toBe(false);
    const busy = watchConfig(loaded(join(dir, 'avawatch.yaml')), () => changes++, log, systemClock);
    writeFileSync(join(dir, 'avawatch.yaml'), 'ruleFiles: []\nlog: {level: warn}\n');
    await time.advance(100); // the event is in; its debounce is not over
    expect(busy.close()).toBe(true);
    await settle();
    expect(changes).toBe(0);
  });
});
