/** node-metrics by target (the keys of `urls`): every state carries its `target`, every alert it as `node`. */
import { byUrls } from '../spread.js';
import type { Spread } from '../types.js';
import type { Spec, State } from './schema.js';

export const spread: Spread<Spec, State> = { ...byUrls<Spec, State>([], ['subnets']), stateOwner: (_key, st) => st.target };
