import { existsSync, readFileSync } from 'node:fs';
import { Document, isMap, isScalar, isSeq, parseDocument, type Node, type Pair, type YAMLMap, YAMLSeq } from 'yaml';
import { describe, expect, it } from 'vitest';
import { when } from '../sim/scenario.js';
import { ruleKinds } from './registry.js';

// `avawatch demo` reads config/demo/rules.yaml and scenario.yaml; both are joined here from
// each kind's src/rules/<kind>/demo.yaml (in registry order) and the cast several kinds share,
// config/demo/world.yaml. After editing one: `npx vitest run src/rules/demo.spec.ts -u`.
// The fragments are read by this spec only: the demo and the image ship the joined files.

const KINDS = Object.keys(ruleKinds);
const WORLD = 'config/demo/world.yaml';
const REGENERATE = "edit those, then `npx vitest run src/rules/demo.spec.ts -u`";
const RULES_HEADER = [
  ' yaml-language-server: $schema=../../docs/schema/rules.schema.json',
  ` Generated from each kind's src/rules/<kind>/demo.yaml, in registry order: ${REGENERATE}.`,
  '',
  " The demo's rules: one of each kind, as an operator writes them, over the demo world",
  ' (config/demo/scenario.yaml). They poll every 5 s (one every 10 s) and their windows are',
  " seconds, not hours, so each fires within the demo's 90 s; rules/*.yaml hold the everyday values.",
].join('\n');
const SCENARIO_HEADER = ` Generated from ${WORLD} and each kind's src/rules/<kind>/demo.yaml (world, then events by time): ${REGENERATE}.`;
// No folding: a world entity stays on its one line.
const OPTIONS = { lineWidth: 0 };

const fragmentFile = (kind: string) => `src/rules/${kind}/demo.yaml`;

function load(file: string): Document.Parsed {
  const doc = parseDocument(readFileSync(file, 'utf8'));
  if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors[0]?.message}`);
  return doc;
}

/** The kinds' parts that exist, in registry order (a missing one fails its own test below). */
function fragments(): Array<{ kind: string; file: string; doc: Document.Parsed }> {
  return KINDS.filter((kind) => existsSync(fragmentFile(kind))).map((kind) => {
    const file = fragmentFile(kind);
    const doc = load(file);
    const extra = isMap(doc.contents) ? doc.contents.items.map((p) => String(keyOf(p))).filter((k) => !['rules', 'world', 'events'].includes(k)) : ['(not a map)'];
    if (extra.length > 0) throw new Error(`${file}: only rules, world and events, not ${extra.join(', ')}`);
    return { kind, file, doc };
  });
}

function keyOf(pair: Pair): unknown {
  return isScalar(pair.key) ? pair.key.value : pair.key;
}

/** The items of a block list; the comment on its key line or above its first item goes with that item. */
function itemsOf(doc: Document, key: string): Node[] {
  const seq = doc.get(key, true);
  if (seq === undefined) return [];
  if (!isSeq(seq)) throw new Error(`${key}: expected a list`);
  const items = seq.items as Node[];
  if (seq.commentBefore && items[0]) items[0].commentBefore = [seq.commentBefore, items[0].commentBefore].filter(Boolean).join('\n');
  return items;
}

/** An event's `at` in milliseconds from the start, as the scenario reads it: the kinds' parts use relative times (+30s). */
function atMs(event: Node, file: string): number {
  const at = when.safeParse(isMap(event) ? event.get('at') : undefined);
  if (!at.success || !at.data.relative) throw new Error(`${file}: events: "at: ${String(isMap(event) ? event.get('at') : '')}" is not a relative time (+30s)`);
  return at.data.ms;
}

function joinedRules(): string {
  const rules = fragments().flatMap(({ doc }) => itemsOf(doc, 'rules'));
  rules.forEach((rule, i) => (rule.spaceBefore = i > 0));
  const doc = new Document({ rules: new YAMLSeq() });
  (doc.get('rules') as YAMLSeq).items.push(...rules);
  doc.commentBefore = RULES_HEADER;
  return doc.toString(OPTIONS);
}

function joinedScenario(): string {
  const doc = load(WORLD);
  const world = doc.get('world', true);
  if (!isMap(world)) throw new Error(`${WORLD}: world: expected a map`);
  const events: Array<{ ms: number; event: Node }> = [];
  for (const { file, doc: part } of fragments()) {
    const own = part.get('world', true);
    if (own !== undefined && !isMap(own)) throw new Error(`${file}: world: expected a map`);
    for (const pair of (own?.items ?? []) as Array<Pair<unknown, Node>>) joinWorld(world, pair, file);
    for (const event of itemsOf(part, 'events')) events.push({ ms: atMs(event, file), event });
  }
  // Array.prototype.sort is stable: at one time, the kinds' events stay in registry order.
  const sorted = events.sort((a, b) => a.ms - b.ms).map((e) => e.event);
  for (const event of sorted) event.spaceBefore = false;
  doc.set('events', new YAMLSeq());
  (doc.get('events') as YAMLSeq).items.push(...sorted);
  doc.commentBefore = [SCENARIO_HEADER, doc.commentBefore].filter(Boolean).join('\n');
  return doc.toString(OPTIONS);
}

/** A kind's world entry: a new key, or more items of a list another part started. */
function joinWorld(world: YAMLMap, pair: Pair<unknown, Node>, file: string): void {
  const key = String(keyOf(pair));
  const existing = world.get(key, true) as Node | undefined;
  if (existing === undefined) {
    world.items.push(pair);
    return;
  }
  if (!isSeq(existing) || !isSeq(pair.value)) throw new Error(`${file}: world.${key} is set elsewhere too: only lists join`);
  const items = pair.value.items as Node[];
  if (pair.value.commentBefore && items[0]) items[0].commentBefore = [pair.value.commentBefore, items[0].commentBefore].filter(Boolean).join('\n');
  existing.items.push(...items);
}

describe("the demo, joined from each kind's part", () => {
  it('config/demo/rules.yaml is the kinds\' demo rules joined', async () => {
    await expect(joinedRules()).toMatchFileSnapshot('../../config/demo/rules.yaml');
  });

  it('config/demo/scenario.yaml is the shared world and the kinds\' worlds and events joined', async () => {
    await expect(joinedScenario()).toMatchFileSnapshot('../../config/demo/scenario.yaml');
  });

  it(`${WORLD} does not name every kind: a kind's own part is in its folder`, () => {
    const text = readFileSync(WORLD, 'utf8');
    expect(KINDS.every((kind) => text.includes(kind))).toBe(false);
  });

  for (const kind of KINDS) {
    it(`${kind}: has its part of the demo, a rule of its kind and a line of the timeline`, () => {
      expect(existsSync(fragmentFile(kind)), `${fragmentFile(kind)}: ${kind}'s part of the demo`).toBe(true);
      const doc = load(fragmentFile(kind));
      const kinds = itemsOf(doc, 'rules').map((r) => (isMap(r) ? r.get('kind') : undefined));
      expect(kinds, `${fragmentFile(kind)}: a rule with kind: ${kind}`).toContain(kind);
      const says = itemsOf(doc, 'events').filter((e) => isMap(e) && typeof e.get('say') === 'string');
      expect(says.length, `${fragmentFile(kind)}: an event with say: (a line of the demo's timeline)`).toBeGreaterThan(0);
    });
  }
});
