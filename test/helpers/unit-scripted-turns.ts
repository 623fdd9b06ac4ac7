// Turns for scripted model-server scenarios that several test folders write alike.
import type { Turn } from '../../src/model-server/scenario-schema';

/** A turn that starts one Explore child with `description` and `prompt`. */
export function exploreChildTurn(description: string, prompt: string): Turn {
  return { toolUses: [{ name: 'Agent', input: { description, prompt, subagent_type: 'Explore' } }] };
}
