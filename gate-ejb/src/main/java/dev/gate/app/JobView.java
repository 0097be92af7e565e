package dev.gate.app;

import java.io.Serializable;
import java.time.Instant;
import java.util.Map;

/** A job's latest execution as operators see it, with its instance's progress. */
public record JobView(long executionId, long instanceId, String job, String status, String exitStatus,
                      Map<String, String> parameters, Instant createdAt, Instant startedAt, Instant endedAt,
                      Progress progress) implements Serializable {

    public boolean running() {
        return "STARTING".equals(status) || "STARTED".equals(status) || "STOPPING".equals(status);
    }
}
