import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { exists, pathsNamed, recipe } from '../../test/helpers/recipe.js';
import { channels } from './registry.js';

// One folder per channel, one registry line: this fails when a folder is not registered, or
// a registered channel lacks its docs, its place in the channel contract test, or the
// `…File` variant of a secret it declares.
describe('channel registry', () => {
  const folders = readdirSync('src/channels', { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name);
  const docs = readFileSync('docs/delivery.md', 'utf8').toLowerCase();
  const contract = readFileSync('test/integration/channels.test.ts', 'utf8');

  it('registers every channel folder under its folder name', () => {
    expect(Object.keys(channels).sort()).toEqual(folders.sort());
  });

  for (const [type, channel] of Object.entries(channels)) {
    it(`${type}: has a docs/delivery.md section and a receiver in the channel contract test`, () => {
      expect(docs).toContain(`## ${type}\n`);
      expect(contract).toContain(`type: ${type},`);
    });

    it(`${type}: each secret it declares is a key of its schema, with a …File variant`, () => {
      for (const f of channel.secretFields) {
        let shape = channel.schema.shape as Record<string, unknown>;
        for (const key of f.path) shape = unwrap(shape[key]);
        expect(Object.keys(shape), `${[...f.path, f.key].join('.')}`).toEqual(expect.arrayContaining([f.key, `${f.key}File`]));
      }
    });
  }
});

// README.md's recipe for a new channel is whole: it names every place a channel has (those
// below, and the contract test and docs/delivery.md the tests above ask for), every file it
// names exists, and every registered channel has each place.
describe("README.md's recipe for a new channel", () => {
  const text = recipe('A new channel');
  const configuration = readFileSync('docs/configuration.md', 'utf8');
  const receivers = configuration.slice(configuration.indexOf('### `receivers`'), configuration.indexOf('`type: '));
  const schema = readFileSync('docs/schema/config.schema.json', 'utf8');
  /** Each place of the recipe, and whether channel `type` has it. */
  const PLACES: Record<string, (type: string) => boolean> = {
    'src/channels/<type>/': (type) => exists(`src/channels/${type}/index.ts`),
    'src/channels/registry.ts': (type) => type in channels,
    'docs/delivery.md': (type) => readFileSync('docs/delivery.md', 'utf8').toLowerCase().includes(`## ${type}\n`),
    'docs/configuration.md': (type) => configuration.includes(`\n\`type: ${type}\`\n`) && receivers.includes(`\`${type}\``),
    'docs/schema/config.schema.json': (type) => new RegExp(`"const":\\s*"${type}"`).test(schema),
    'test/integration/channels.test.ts': (type) => readFileSync('test/integration/channels.test.ts', 'utf8').includes(`type: ${type},`),
  };

  it('names each place a channel has', () => {
    expect(Object.keys(PLACES).filter((place) => !text.includes(`\`${place}\``))).toEqual([]);
  });

  it('every file it names exists', () => {
    const named = pathsNamed(text).flatMap((path) => (path.includes('<type>') ? Object.keys(channels).map((type) => path.replaceAll('<type>', type)) : [path]));
    expect(named.length).toBeGreaterThan(5);
    expect(named.filter((path) => !exists(path))).toEqual([]);
  });

  for (const type of Object.keys(channels)) {
    it(`${type}: has each place of the recipe`, () => {
      expect(Object.entries(PLACES).filter(([, has]) => !has(type)).map(([place]) => place)).toEqual([]);
    });
  }
});

/** The object shape inside an optional/default wrapper. */
function unwrap(schema: unknown): Record<string, unknown> {
  let s = schema as { shape?: Record<string, unknown>; unwrap?: () => unknown; def?: { innerType?: unknown } };
  for (let i = 0; i < 5 && !s.shape; i++) s = (s.unwrap?.() ?? s.def?.innerType) as typeof s;
  return s.shape ?? {};
}
