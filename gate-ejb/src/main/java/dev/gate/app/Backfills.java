package dev.gate.app;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The backfill jobs (Jakarta Batch through the gate) as the API and the status page use them: start, stop, restart,
 * read. The batch module implements it; the adapters reach the jobs only through it.
 */
public interface Backfills {

    /** The job's name (its job XML), also its path under /jobs. */
    String JOB = "backfill-history";

    /** The parameters a start takes (any other is refused). */
    Set<String> parameterNames();

    /** Starts the job with these parameters, for the operator {@code actor}. */
    JobView start(Map<String, String> parameters, String actor) throws JobRefusedException;

    /** Asks a running execution to stop at its next checkpoint. */
    JobView stop(long executionId, String actor) throws JobRefusedException;

    /** Restarts a stopped or failed execution from its last checkpoint: the new execution. */
    JobView restart(long executionId, String actor) throws JobRefusedException;

    Optional<JobView> one(long executionId);

    /** Every execution of the job, newest first. */
    List<JobView> list();
}
