// The shape of a PermissionRequest hook's `updatedPermissions` (Claude Code's permission updates, docs/hooks.md).
import { z } from 'zod';
import {
  hookModes,
  permissionUpdateDestinations,
  permissionUpdateLimits,
  type PermissionUpdate,
} from './permission-updates';

/** Claude Code's permission updates; unknown fields are ignored, a bad field makes the whole output ignored. */
export const buildPermissionUpdateSchema = (): z.ZodType<PermissionUpdate[]> => {
  const destination = z.enum(permissionUpdateDestinations);
  const rules = z
    .array(
      z.object({
        toolName: z.string().min(1).max(200),
        ruleContent: z.string().max(permissionUpdateLimits.maxRuleChars).optional(),
      }),
    )
    .max(permissionUpdateLimits.maxRules);
  const behavior = z.enum(['allow', 'deny', 'ask']);
  const directories = z.array(z.string().max(4_096)).max(permissionUpdateLimits.maxRules);
  return z
    .array(
      z.discriminatedUnion('type', [
        z.looseObject({ type: z.literal('addRules'), rules, behavior, destination }),
        z.looseObject({ type: z.literal('replaceRules'), rules, behavior, destination }),
        z.looseObject({ type: z.literal('removeRules'), rules, behavior, destination }),
        z.looseObject({ type: z.literal('setMode'), mode: z.enum(hookModes), destination }),
        z.looseObject({ type: z.literal('addDirectories'), directories, destination }),
        z.looseObject({ type: z.literal('removeDirectories'), directories, destination }),
      ]),
    )
    .max(permissionUpdateLimits.maxUpdates);
};

export type { PermissionUpdate } from './permission-updates';
