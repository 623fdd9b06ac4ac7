// Where a budgeted model call's time goes before it is sent, read from the histories of a tree
// (server clock, the same for every workflow): the child's `budgetReserve` signal to the root, the
// root's `budgetGrant` back, and the callModel activity scheduled (docs/budgets.md).
import type proto from '@temporalio/proto';
import type { BudgetGrant, BudgetReserveRequest } from '../../src/shared/budget/budget';
import type { ModelCallInput } from '../../src/shared/model/model-call';

type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;

/** One model call of one agent, from the task that decided it to its activity being scheduled (ms). */
export interface CallTiming {
  agentId: string;
  /** Decided in another task than the one scheduling it: a reservation answered by the root. */
  reservedAtRoot: boolean;
  /** Its room came from the agent's lease (docs/budgets.md, Leases): decided without the root. */
  leased: boolean;
  /** The deciding workflow task's start → the callModel activity scheduled. */
  decideToScheduledMs: number;
  /** The deciding workflow task's completion → the activity scheduled (0 when the same task scheduled it). */
  roundTripMs: number;
  /** The deciding workflow task's started → completed. */
  decideTaskMs: number;
  /**
   * The critical path, whatever the mechanism: the call could go (its turn's last tool result, or the run's
   * start) → callModel scheduled. A reservation asked ahead while the tools ran adds nothing here when its
   * grant came in time.
   */
  readyToScheduledMs: number;
  reservationId?: string;
  /** Server times of the reservation's steps in this agent's history: the reserve sent, the grant received. */
  reserveSentAt?: number;
  grantReceivedAt?: number;
  scheduledAt: number;
}

/** The root's side of a reservation: when its reserve signal arrived and when the grant went out. */
export interface RootSide {
  reserveReceivedAt: Map<string, number>;
  grantSentAt: Map<string, number>;
}

const timeOf = (event: HistoryEvent) =>
  Number(event.eventTime?.seconds ?? 0) * 1000 + (event.eventTime?.nanos ?? 0) / 1e6;

/** A payload's JSON (the SDK's default converter; the bench env has no codec). */
function jsonOf<T>(data: Uint8Array | null | undefined): T | undefined {
  if (!data) return undefined;
  try {
    return JSON.parse(Buffer.from(data).toString()) as T;
  } catch {
    return undefined;
  }
}

/** The model calls of one agent's history. */
export function callTimings(agentId: string, events: readonly HistoryEvent[]): CallTiming[] {
  const byId = new Map(events.map((event) => [Number(event.eventId), event]));
  const reserveSent = new Map<string, HistoryEvent>();
  const grantReceived = new Map<string, number>();
  for (const event of events) {
    const sent = event.signalExternalWorkflowExecutionInitiatedEventAttributes;
    if (sent?.signalName === 'budgetReserve') {
      const reservationId = jsonOf<{ request: BudgetReserveRequest }>(sent.input?.payloads?.[0]?.data)?.request
        .reservationId;
      if (reservationId) reserveSent.set(reservationId, event);
    }
    const received = event.workflowExecutionSignaledEventAttributes;
    if (received?.signalName === 'budgetGrant') {
      const reservationId = jsonOf<BudgetGrant>(received.input?.payloads?.[0]?.data)?.reservationId;
      if (reservationId) grantReceived.set(reservationId, timeOf(event));
    }
  }
  const timings: CallTiming[] = [];
  const leasesSeen = new Set<string>();
  let readyAt = events.length > 0 ? timeOf(events[0]!) : 0;
  for (const event of events) {
    if (readiness(event)) readyAt = timeOf(event);
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled?.activityType?.name !== 'callModel') continue;
    const budget = jsonOf<ModelCallInput>(scheduled.input?.payloads?.[0]?.data)?.budget;
    // The first call of a lease waited for the reservation that made it; the later ones did not ask.
    const firstOfLease =
      budget?.leaseId !== undefined && !leasesSeen.has(budget.leaseId) && reserveSent.has(budget.leaseId);
    if (budget?.leaseId !== undefined) leasesSeen.add(budget.leaseId);
    const reservationId = firstOfLease ? budget.leaseId : budget?.reservationId;
    const reserve = reservationId ? reserveSent.get(reservationId) : undefined;
    // The task that decided the call: the one that sent its reservation, or the one that scheduled it.
    const completedId = reserve
      ? reserve.signalExternalWorkflowExecutionInitiatedEventAttributes?.workflowTaskCompletedEventId
      : scheduled.workflowTaskCompletedEventId;
    const completed = byId.get(Number(completedId));
    const started = byId.get(Number(completed?.workflowTaskCompletedEventAttributes?.startedEventId));
    if (!completed || !started) continue;
    const scheduledAt = timeOf(event);
    const grantAt = reservationId ? grantReceived.get(reservationId) : undefined;
    timings.push({
      agentId,
      reservedAtRoot: reserve !== undefined,
      leased: budget?.leaseId !== undefined && reserve === undefined,
      decideToScheduledMs: scheduledAt - timeOf(started),
      roundTripMs: scheduledAt - timeOf(completed),
      decideTaskMs: timeOf(completed) - timeOf(started),
      readyToScheduledMs: timeOf(event) - readyAt,
      ...(reservationId ? { reservationId } : {}),
      ...(reserve ? { reserveSentAt: timeOf(completed) } : {}),
      ...(grantAt !== undefined ? { grantReceivedAt: grantAt } : {}),
      scheduledAt,
    });
  }
  return timings;
}

/** An event after which the next model call may go: a tool's end (activity, local activity, child), or a message. */
function readiness(event: HistoryEvent): boolean {
  if (
    event.activityTaskCompletedEventAttributes ||
    event.activityTaskFailedEventAttributes ||
    event.activityTaskTimedOutEventAttributes
  )
    return true;
  if (
    event.activityTaskCanceledEventAttributes ||
    event.markerRecordedEventAttributes?.markerName === 'core_local_activity'
  )
    return true;
  if (event.childWorkflowExecutionCompletedEventAttributes || event.childWorkflowExecutionStartedEventAttributes)
    return true;
  const signal = event.workflowExecutionSignaledEventAttributes?.signalName;
  return signal !== undefined && signal !== 'budgetGrant';
}

/** The root's history: reservations received from its tree and grants sent back, by reservation id. */
export function rootSide(events: readonly HistoryEvent[]): RootSide {
  const side: RootSide = { reserveReceivedAt: new Map(), grantSentAt: new Map() };
  for (const event of events) {
    const received = event.workflowExecutionSignaledEventAttributes;
    if (received?.signalName === 'budgetReserve') {
      const reservationId = jsonOf<{ request: BudgetReserveRequest }>(received.input?.payloads?.[0]?.data)?.request
        .reservationId;
      if (reservationId) side.reserveReceivedAt.set(reservationId, timeOf(event));
    }
    const sent = event.signalExternalWorkflowExecutionInitiatedEventAttributes;
    if (sent?.signalName === 'budgetGrant') {
      const reservationId = jsonOf<BudgetGrant>(sent.input?.payloads?.[0]?.data)?.reservationId;
      if (reservationId) side.grantSentAt.set(reservationId, timeOf(event));
    }
  }
  return side;
}

/** A reserved call's round trip in four legs (ms): reserve delivered, the root's answer, grant delivered, the child's task. */
export interface RoundTripLegs {
  reserveDelivery: number[];
  rootAnswer: number[];
  grantDelivery: number[];
  childTask: number[];
}

export function roundTripLegs(calls: readonly CallTiming[], root: RootSide): RoundTripLegs {
  const legs: RoundTripLegs = { reserveDelivery: [], rootAnswer: [], grantDelivery: [], childTask: [] };
  for (const call of calls) {
    if (
      !call.reservedAtRoot ||
      !call.reservationId ||
      call.reserveSentAt === undefined ||
      call.grantReceivedAt === undefined
    )
      continue;
    const receivedAt = root.reserveReceivedAt.get(call.reservationId);
    const answeredAt = root.grantSentAt.get(call.reservationId);
    if (receivedAt === undefined || answeredAt === undefined) continue;
    legs.reserveDelivery.push(receivedAt - call.reserveSentAt);
    legs.rootAnswer.push(answeredAt - receivedAt);
    legs.grantDelivery.push(call.grantReceivedAt - answeredAt);
    legs.childTask.push(call.scheduledAt - call.grantReceivedAt);
  }
  return legs;
}
