package dev.gate.health;

import jakarta.ejb.EJB;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * Readiness: DOWN while the gate's database is unavailable (calls are paused: a load balancer should send callers
 * elsewhere), UP once it answers again. Liveness is left to the server's own check: a paused gate is alive and
 * resumes by itself, so restarting it would not help.
 */
@Readiness
@ApplicationScoped
public class DatabaseReadiness implements HealthCheck {

    @EJB
    CallsPaused availability;

    @Override
    public HealthCheckResponse call() {
        boolean paused = availability.callsPaused();
        return HealthCheckResponse.named("gate-database")
                .status(!paused)
                .withData("calls", paused ? "paused: the gate's database is unavailable" : "taken")
                .build();
    }
}
