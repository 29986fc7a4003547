/**
 * The generation of its ScheduledJob that a job's row last mirrored (store/resourceJobs.ts): the
 * controller, reconciling from a cache that can lag behind a change the API made, never writes an
 * older spec over a newer one.
 */
export const mirroredGenerationSchema = `
ALTER TABLE jobs ADD COLUMN resource_generation bigint;
`;
