import { alertmanagerChannel } from './alertmanager/index.js';
import { discordChannel } from './discord/index.js';
import { emailChannel } from './email/index.js';
import { pagerdutyChannel } from './pagerduty/index.js';
import { slackChannel } from './slack/index.js';
import { telegramChannel } from './telegram/index.js';
import { webhookChannel } from './webhook/index.js';
import { placeholderReason } from './placeholder.js';
import type { Channel, ReceiverBase } from './types.js';

// The one list of channels: the receiver schema and the app read it.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each channel checks its own config
export type AnyChannel = Channel<any>;

export const channels = {
  [slackChannel.type]: slackChannel,
  [emailChannel.type]: emailChannel,
  [webhookChannel.type]: webhookChannel,
  [alertmanagerChannel.type]: alertmanagerChannel,
  [telegramChannel.type]: telegramChannel,
  [discordChannel.type]: discordChannel,
  [pagerdutyChannel.type]: pagerdutyChannel,
} satisfies Record<string, AnyChannel>;

/** Each channel as the app uses it: a receiver whose secret is a placeholder is disabled, as an empty one is. */
const usable = new Map(
  Object.values(channels as Record<string, AnyChannel>).map((c): [string, AnyChannel] => [c.type, { ...c, disabledReason: (r: ReceiverBase) => c.disabledReason(r) ?? placeholderReason(c, r) }]),
);

export function channel(type: string): Channel<ReceiverBase> {
  const found = usable.get(type);
  if (!found) throw new Error(`unknown receiver type "${type}"`);
  return found;
}
