package dev.gate.batch.jobs;

import dev.gate.app.Backfills;

import dev.gate.app.JobRefusedException;

import dev.gate.app.Progress;

import dev.gate.app.JobView;

import jakarta.annotation.Resource;
import jakarta.batch.operations.JobExecutionAlreadyCompleteException;
import jakarta.batch.operations.JobExecutionIsRunningException;
import jakarta.batch.operations.JobExecutionNotMostRecentException;
import jakarta.batch.operations.JobExecutionNotRunningException;
import jakarta.batch.operations.JobOperator;
import jakarta.batch.operations.JobRestartException;
import jakarta.batch.operations.NoSuchJobException;
import jakarta.batch.operations.NoSuchJobExecutionException;
import jakarta.batch.runtime.BatchRuntime;
import jakarta.batch.runtime.JobExecution;
import jakarta.batch.runtime.JobInstance;
import jakarta.ejb.Local;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.Properties;
import java.util.TreeMap;
import java.util.logging.Logger;

/**
 * The backfill jobs, for the HTTP API and the status page: start (parameters checked first), stop (at the end of the
 * chunk in hand), restart from the last checkpoint, and the list of jobs with their progress. Job state lives in
 * JBeret's JDBC job repository, in the gate's database.
 */
@Stateless
@Local(Backfills.class)
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class BackfillJobs implements Backfills {

    /** Jobs listed, newest first. */
    static final int LISTED = 50;

    private static final Logger LOG = Logger.getLogger(BackfillJobs.class.getName());

    private static final String PROGRESS = """
            SELECT count(*), count(*) FILTER (WHERE fetched_at > clock_timestamp() - ? * interval '1 millisecond')
            FROM gate_backfill_result WHERE job_instance_id = ?""";

    @Resource(lookup = "java:jboss/datasources/GateDS")
    DataSource database;

    @Override
    public Set<String> parameterNames() {
        return BackfillRequest.NAMES;
    }

    @Override
    public JobView start(Map<String, String> parameters, String actor) throws JobRefusedException {
        BackfillRequest request;
        try {
            request = BackfillRequest.parse(parameters);
        } catch (IllegalArgumentException e) {
            throw new JobRefusedException(JobRefusedException.Kind.INVALID, e.getMessage());
        }
        long id = operator().start(JOB, request.parameters());
        LOG.info("job " + JOB + " execution " + id + " started by " + actor + ": limit="
                + request.parameters().getProperty("limit") + ", " + request.items() + " items");
        return view(id);
    }

    /** Asks the execution to stop; it ends STOPPED after the chunk in hand is written. */
    @Override
    public JobView stop(long executionId, String actor) throws JobRefusedException {
        try {
            operator().stop(executionId);
        } catch (NoSuchJobExecutionException e) {
            throw notFound(executionId);
        } catch (JobExecutionNotRunningException e) {
            throw new JobRefusedException(JobRefusedException.Kind.CONFLICT, "execution " + executionId
                    + " is not running");
        }
        LOG.info("job " + JOB + " execution " + executionId + " asked to stop by " + actor);
        return view(executionId);
    }

    /** A new execution of the same job instance, from its last checkpoint, with the same parameters. */
    @Override
    public JobView restart(long executionId, String actor) throws JobRefusedException {
        long id;
        try {
            JobOperator operator = operator();
            id = operator.restart(executionId, operator.getParameters(executionId));
        } catch (NoSuchJobExecutionException e) {
            throw notFound(executionId);
        } catch (JobExecutionAlreadyCompleteException e) {
            throw new JobRefusedException(JobRefusedException.Kind.CONFLICT, "execution " + executionId
                    + " completed: nothing to restart");
        } catch (JobExecutionNotMostRecentException e) {
            throw new JobRefusedException(JobRefusedException.Kind.CONFLICT, "execution " + executionId
                    + " is not its job's latest: restart the latest");
        } catch (JobExecutionIsRunningException | JobRestartException e) {
            throw new JobRefusedException(JobRefusedException.Kind.CONFLICT, "execution " + executionId
                    + " cannot be restarted now: " + e.getMessage());
        }
        LOG.info("job " + JOB + " execution " + executionId + " restarted by " + actor + " as execution " + id);
        return view(id);
    }

    @Override
    public Optional<JobView> one(long executionId) {
        try {
            return Optional.of(view(executionId));
        } catch (JobRefusedException e) {
            return Optional.empty();
        }
    }

    /** Each job instance's latest execution, newest first. */
    @Override
    public List<JobView> list() {
        JobOperator operator = operator();
        List<JobInstance> instances;
        try {
            instances = operator.getJobInstances(JOB, 0, LISTED);
        } catch (NoSuchJobException none) {
            return List.of();
        }
        List<JobView> views = new ArrayList<>();
        for (JobInstance instance : instances) {
            operator.getJobExecutions(instance).stream().max(Comparator.comparingLong(JobExecution::getExecutionId))
                    .ifPresent(e -> views.add(view(e, instance.getInstanceId())));
        }
        views.sort(Comparator.comparingLong(JobView::executionId).reversed());
        return views;
    }

    private JobView view(long executionId) throws JobRefusedException {
        try {
            JobOperator operator = operator();
            return view(operator.getJobExecution(executionId), operator.getJobInstance(executionId).getInstanceId());
        } catch (NoSuchJobExecutionException e) {
            throw notFound(executionId);
        }
    }

    private JobView view(JobExecution e, long instanceId) {
        Properties p = e.getJobParameters() == null ? new Properties() : e.getJobParameters();
        Map<String, String> parameters = new TreeMap<>();
        p.stringPropertyNames().forEach(k -> parameters.put(k, p.getProperty(k)));
        Instant started = instant(e.getStartTime());
        Instant ended = instant(e.getEndTime());
        Duration running = started == null ? Duration.ZERO
                : Duration.between(started, ended == null ? Instant.now() : ended);
        return new JobView(e.getExecutionId(), instanceId, e.getJobName(), e.getBatchStatus().name(),
                e.getExitStatus(), parameters, instant(e.getCreateTime()), started, ended,
                progress(instanceId, p, running, ended == null));
    }

    private Progress progress(long instanceId, Properties parameters, Duration running, boolean live) {
        long total;
        try {
            total = BackfillRequest.items(parameters);
        } catch (IllegalArgumentException e) {
            total = 0;
        }
        try (Connection c = database.getConnection(); PreparedStatement ps = c.prepareStatement(PROGRESS)) {
            ps.setLong(1, Progress.RATE_WINDOW.toMillis());
            ps.setLong(2, instanceId);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return Progress.of(rs.getLong(1), total, live ? rs.getLong(2) : 0, running);
            }
        } catch (SQLException e) {
            LOG.fine(() -> "progress of job instance " + instanceId + " not read: " + e.getMessage());
            return Progress.of(0, total, 0, running);
        }
    }

    private static Instant instant(Date d) {
        return d == null ? null : d.toInstant();
    }

    private static JobRefusedException notFound(long executionId) {
        return new JobRefusedException(JobRefusedException.Kind.NOT_FOUND, "no execution " + executionId + " of "
                + JOB);
    }

    private static JobOperator operator() {
        return BatchRuntime.getJobOperator();
    }
}
