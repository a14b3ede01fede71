import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createMetrics } from '../metrics/registry.js';
import { ruleKind, ruleKinds } from './registry.js';

// docs/grafana/avawatch.json, the dashboard users import, is joined: src/metrics/dashboard.json
// (the daemon's rows, the variables, the dashboard's settings), then each kind's row from
// src/rules/<kind>/dashboard.json in registry order. The parts leave out what the join adds:
// panel ids, x and y, and the data source. After editing one: the command below rewrites it.
const REGENERATE = 'npx vitest run src/rules/dashboard.spec.ts -u';
const NOTE = `Generated from src/metrics/dashboard.json and each rule kind's src/rules/<kind>/dashboard.json: edit those, then \`${REGENERATE}\`.`;
const BASE = 'src/metrics/dashboard.json';
const COLUMNS = 24;
const PROMETHEUS = { type: 'prometheus', uid: '${DS_PROMETHEUS}' };

/** A panel as a part writes it: its size, not its place; no id, no data source. */
const Panel = z.looseObject({
  type: z.string().refine((t) => t !== 'row', 'a part is one row: its panels are not rows'),
  title: z.string().min(1),
  description: z.string().optional(),
  gridPos: z.strictObject({ w: z.int().min(1).max(COLUMNS), h: z.int().min(1) }),
  targets: z.array(z.looseObject({ expr: z.string().min(1), datasource: z.never().optional() })).min(1),
  id: z.never().optional(),
  datasource: z.never().optional(),
});
type Panel = z.infer<typeof Panel>;

/** A row: a kind's part, or one of the base's rows. */
const Row = z.strictObject({ title: z.string().min(1), collapsed: z.boolean().optional(), panels: z.array(Panel).min(1) });
type Row = z.infer<typeof Row>;

const Base = z.looseObject({
  description: z.string(),
  rows: z.array(Row).min(1),
  __requires: z.array(z.looseObject({ type: z.string(), id: z.string() })),
  panels: z.never().optional(),
});

function readJson(file: string): unknown {
  return JSON.parse(readFileSync(file, 'utf8'));
}

function parse<T>(file: string, schema: z.ZodType<T>): T {
  const result = schema.safeParse(readJson(file));
  if (!result.success) throw new Error(`${file}: ${z.prettifyError(result.error)}`);
  return result.data;
}

const partFile = (kind: string) => `src/rules/${kind}/dashboard.json`;
const kinds = Object.keys(ruleKinds);
const base = parse(BASE, Base);
const parts = new Map(kinds.filter((kind) => existsSync(partFile(kind))).map((kind) => [kind, parse(partFile(kind), Row)]));

/** Rows full width; each row's panels left to right, wrapping at 24 columns; ids in order. */
function layOut(rows: readonly Row[]): object[] {
  const out: object[] = [];
  let id = 0;
  let y = 0;
  for (const row of rows) {
    const collapsed = row.collapsed === true;
    const header = { type: 'row', title: row.title, id: ++id, collapsed, gridPos: { h: 1, w: COLUMNS, x: 0, y }, panels: [] as object[] };
    let x = 0;
    let top = y + 1;
    let height = 0;
    const panels = row.panels.map((p) => {
      if (x + p.gridPos.w > COLUMNS) [x, top, height] = [0, top + height, 0];
      const placed = place(p, ++id, x, top);
      x += p.gridPos.w;
      height = Math.max(height, p.gridPos.h);
      return placed;
    });
    // A collapsed row holds its panels (placed as if open) and takes one line.
    if (collapsed) {
      header.panels = panels;
      out.push(header);
      y += 1;
    } else {
      out.push(header, ...panels);
      y = top + height;
    }
  }
  return out;
}

function place(panel: Panel, id: number, x: number, y: number): object {
  const { type, title, description, gridPos, targets, ...rest } = panel;
  return {
    type,
    title,
    description,
    id,
    datasource: PROMETHEUS,
    gridPos: { h: gridPos.h, w: gridPos.w, x, y },
    targets: targets.map((t) => ({ datasource: PROMETHEUS, ...t })),
    ...rest,
  };
}

/** The base with its rows and the kinds' rows laid out as `panels`, in the base's key order. */
function joined(): string {
  const keys = Object.keys(z.record(z.string(), z.unknown()).parse(readJson(BASE)));
  const panels = layOut([...base.rows, ...parts.values()]);
  const entries = keys.map((k) => {
    if (k === 'rows') return ['panels', panels];
    if (k === 'description') return [k, `${base.description} ${NOTE}`];
    return [k, base[k]];
  });
  return `${JSON.stringify(Object.fromEntries(entries), null, 2)}\n`;
}

/** Metric names in PromQL (a histogram's _bucket/_sum/_count as its family): ours and prom-client's. */
function metricsOf(panel: Panel): string[] {
  return [...new Set(panel.targets.flatMap((t) => t.expr.match(/\b(?:avawatch|process|nodejs)_[a-z0-9_]+/g) ?? []).map((m) => m.replace(/_(bucket|sum|count)$/, '')))];
}

/** What the daemon exports whatever its rules: every metric of its registry (the kinds' gauges are not in it). */
const daemonMetrics = new Set(
  createMetrics({ version: '0', outboxPending: () => 0, firing: () => [], ruleSamples: () => [], ruleGauges: [], budgets: () => [], ready: () => true })
    .registry.getMetricsAsArray()
    .map((m) => m.name),
);
const gaugesOf = (kind: string) => ruleKind(kind).gauges.map((g) => g.name);
const kindOfGauge = new Map(kinds.flatMap((kind) => gaugesOf(kind).map((g) => [g, kind] as const)));
const names = (title: string, kind: string) => new RegExp(`(?<![\\w-])${kind}(?![\\w-])`).test(title);

describe('the Grafana dashboard, joined from the daemon\'s part and each kind\'s', () => {
  it(`docs/grafana/avawatch.json is ${BASE} and the kinds' parts joined (${REGENERATE})`, async () => {
    await expect(joined()).toMatchFileSnapshot('../../docs/grafana/avawatch.json');
  });

  it("the daemon's part queries only the daemon's own metrics", () => {
    const foreign = base.rows.flatMap((row) => row.panels.flatMap((p) => metricsOf(p).filter((m) => !daemonMetrics.has(m)).map((m) => `"${p.title}" → ${m}`)));
    expect(foreign, `${BASE}: a kind's gauge belongs in its own part`).toEqual([]);
  });

  it('__requires names every panel type the dashboard uses', () => {
    const types = new Set([...base.rows, ...parts.values()].flatMap((row) => row.panels.map((p) => p.type)));
    const listed = base.__requires.filter((r) => r.type === 'panel').map((r) => r.id);
    expect([...types].filter((t) => !listed.includes(t)), `${BASE}: __requires`).toEqual([]);
  });

  for (const kind of kinds) {
    it(`${kind}: its part queries each of its gauges, only its own, and the daemon's metrics`, () => {
      const gauges = gaugesOf(kind);
      const part = parts.get(kind);
      if (gauges.length === 0) {
        expect(part, `${partFile(kind)}: ${kind} exports no gauge, so it has no row`).toBeUndefined();
        return;
      }
      expect(part, `${partFile(kind)}: ${kind} exports gauges, so it has a row of panels`).toBeDefined();
      expect(names(part?.title ?? '', kind), `${partFile(kind)}: its row's title names ${kind}`).toBe(true);
      const panels = part?.panels ?? [];
      const queried = new Set(panels.flatMap(metricsOf));
      expect(gauges.filter((g) => !queried.has(g)), `${partFile(kind)}: gauges of ${kind} no panel queries`).toEqual([]);
      // Another kind's gauge only in a panel whose title names that kind.
      const foreign = panels.flatMap((p) =>
        metricsOf(p)
          .filter((m) => !daemonMetrics.has(m) && !gauges.includes(m))
          .filter((m) => {
            const other = kindOfGauge.get(m);
            return other === undefined || !names(p.title, other);
          })
          .map((m) => `"${p.title}" → ${m} (${kindOfGauge.get(m) ?? 'neither a kind\'s gauge nor the daemon\'s'})`),
      );
      expect(foreign, `${partFile(kind)}: metrics neither ${kind}'s nor the daemon's (name the other kind in the panel's title)`).toEqual([]);
    });
  }
});
