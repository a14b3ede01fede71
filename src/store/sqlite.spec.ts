import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { storeContract } from './contract.js';
import { MIGRATIONS } from './migrations.js';
import { SqliteStore } from './sqlite.js';

const dir = mkdtempSync(join(tmpdir(), 'avawatch-store-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Every place is a real file: a second open is a second process's handle on it.
storeContract('SqliteStore', (place) => SqliteStore.open(join(dir, `${place}.db`)));

describe('SqliteStore: the file', () => {
  it('creates the directory and uses WAL (readers beside the daemon never block it)', async () => {
    const path = join(dir, 'nested', 'state.db');
    await SqliteStore.open(path).close();
    const raw = new Database(path);
    expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
    raw.close();
  });

  it('refuses a state file written by a newer avawatch instead of resetting it', () => {
    const path = join(dir, 'future.db');
    const db = new Database(path);
    db.pragma('user_version = 99');
    db.close();
    expect(() => SqliteStore.open(path)).toThrow(`state file schema version 99 is newer than this avawatch knows (${MIGRATIONS.length})`);
  });

  it('refuses a corrupt state file loudly', () => {
    const path = join(dir, 'corrupt.db');
    writeFileSync(path, 'this is not a database, just text that is long enough '.repeat(100));
    expect(() => SqliteStore.open(path)).toThrow(/cannot open state file .*corrupt\.db: file is not a database/);
  });

  it('stops answering a ping once closed', async () => {
    const store = SqliteStore.open(':memory:');
    await store.close();
    await expect(store.ping()).rejects.toThrow();
    await store.close(); // twice is harmless
  });
});
