// A custom tool: the model sees its name, description and the JSON Schema of its zod input.
import { z } from 'zod';
import { defineTool } from 'durable-subagents/worker';

/** Tickets of a pretend support desk (a team would call its own API here). */
const tickets: Record<string, { title: string; customer: string; priority: 'low' | 'high' }> = {
  'T-1001': { title: 'Login page returns 500 after password reset', customer: 'Acme', priority: 'high' },
  'T-1002': { title: 'Typo in the invoice footer', customer: 'Globex', priority: 'low' },
};

export const lookupTicket = defineTool({
  name: 'lookup_ticket',
  description: 'Looks up a support ticket by id (for example T-1001): its title, customer and priority.',
  input: z.object({ id: z.string().regex(/^T-\d+$/, 'a ticket id looks like T-1001') }),
  readOnly: true,
  run: ({ id }, context) => {
    context.heartbeat({ looking: id });
    const ticket = tickets[id];
    return ticket ? JSON.stringify({ id, ...ticket }) : { content: `No ticket ${id}.`, isError: true };
  },
});
