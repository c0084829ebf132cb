export { ClaimOwner } from './claim-owner.ts';
export { ClaimQueue, type Claim, type QueueSpec, type QueueTable } from './claim.ts';
export { JobRunner, type Job, type JobLogger, type JobStats } from './runner.ts';
export { Scheduler, type ScheduledJobSpec, type ScheduledOutcome } from './schedule.ts';
