import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COMMIT_STAGES, describeStages } from '../src/alerts/pipeline/index.js';

// The pipeline's code is its documentation: the stage table docs/delivery.md shows is the
// one the code prints, stage for stage.
describe('the alert pipeline as docs/delivery.md shows it', () => {
  it('lists the stages the code runs, in the order it runs them', () => {
    const docs = readFileSync('docs/delivery.md', 'utf8');
    expect(docs, 'docs/delivery.md "The pipeline": paste describeStages() from src/alerts/pipeline/index.ts').toContain(describeStages());
    expect(COMMIT_STAGES.map((s) => s.name)).toEqual(['enrich', 'route', 'mute', 'group', 'hold', 'plan', 'enqueue']);
  });
});
