package dev.gate.web.status;

import dev.gate.app.JobView;
import dev.gate.app.Progress;

import java.io.Serializable;
import java.util.Locale;

/** One backfill job on the status page: what it walks, its state, a progress bar, its rate and time left. */
public final class JobRow implements Serializable {

    private static final long serialVersionUID = 1L;

    private final JobView job;

    JobRow(JobView job) {
        this.job = job;
    }

    public long getExecutionId() {
        return job.executionId();
    }

    public String getStatus() {
        return job.status();
    }

    public boolean isRunning() {
        return job.running();
    }

    /** A stopped or failed execution can go on from its last checkpoint. */
    public boolean isRestartable() {
        return "STOPPED".equals(job.status()) || "FAILED".equals(job.status());
    }

    public int getPercent() {
        return job.progress().percent();
    }

    /** "limit vendor-a: AAPL,MSFT from 2024-01-01 to 2024-02-09". */
    public String getWhat() {
        return "limit " + job.parameters().get("limit") + ": " + job.parameters().get("symbols") + " from "
                + job.parameters().get("from") + " to " + job.parameters().get("to");
    }

    /** "40 of 200 items (20%), 268 per min, 35 s left". */
    public String getProgress() {
        Progress p = job.progress();
        StringBuilder b = new StringBuilder().append(p.done()).append(" of ").append(p.total()).append(" items (")
                .append(p.percent()).append("%)");
        if (job.running()) {
            b.append(", ").append(String.format(Locale.ROOT, "%.0f", p.perMinute())).append(" per min");
            b.append(p.left() == null ? ", no estimate yet" : ", " + Words.span(p.left().toMillis()) + " left");
        }
        return b.toString();
    }
}
