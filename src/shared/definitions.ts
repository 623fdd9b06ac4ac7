import { defineQuery } from '@temporalio/workflow';
import type { AgentStatusSnapshot } from './agent';
import type { ConversationQueryInput, ConversationSlice } from './model-call';

/** Query names are part of the public interface (the `temporal` CLI can call them too). */
export const conversationQuery = defineQuery<ConversationSlice, [ConversationQueryInput]>('conversation');
export const statusQuery = defineQuery<AgentStatusSnapshot>('status');
