import { loadScenario } from '../sim/scenario.js';
import { startSim } from '../sim/server.js';
import { systemClock } from '../base/clock.js';
import { every } from '../base/timers.js';

export interface SimCommandOptions {
  port: string;
  host: string;
  scenario?: string;
  seed?: string;
}

/** `avawatch sim`: the simulator in the foreground until Ctrl-C. */
export async function simCommand(opts: SimCommandOptions): Promise<void> {
  const scenario = opts.scenario ? loadScenario(opts.scenario) : undefined;
  const sim = await startSim({
    port: Number(opts.port),
    host: opts.host,
    ...(scenario ? { scenario } : {}),
    ...(opts.seed ? { seed: Number(opts.seed) } : {}),
  });
  console.log(`avawatch simulator: Data API and Metrics API on ${sim.url}`);
  console.log(`  point avawatch at it: api.dataUrl and api.metricsUrl: ${sim.url}`);
  console.log(`  simulated time: ${new Date(sim.world.clock.nowMs()).toISOString()}${scenario ? ` (scenario ${opts.scenario}, speed ${scenario.speed})` : ''}`);
  console.log(`  control: curl -X POST ${sim.url}/_sim/clock -d '{"advance":"30s"}'   |   GET ${sim.url}/_sim/state`);
  const stopTicking = every(systemClock, 1000, () => {
    const applied = sim.tick();
    if (applied > 0) console.log(`${new Date(sim.world.clock.nowMs()).toISOString()} scenario: ${applied} event(s) applied`);
  });
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  stopTicking();
  await sim.close();
}
