import type { Transcript } from '../types';

/**
 * Whether the demo banner belongs over what is shown: the model the shown session will use, which
 * is its recorded one (a reopened session keeps it); an outside agent's session has no Hark model at
 * all; with no session shown (a new chat) or none recorded, the model Settings give a new session.
 */
export function usesDemoModel(shown: Pick<Transcript, 'client' | 'model'> | null, settingsDemo: boolean): boolean {
  if (shown === null) return settingsDemo;
  if (shown.client) return false;
  if (shown.model) return shown.model.provider === 'demo';
  return settingsDemo;
}
