package dev.gate.health;

/** The gate's own judgement of whether it takes calls: the local view the readiness check reads. */
public interface CallsPaused {

    /** True while calls are turned away because the gate's database is unavailable. */
    boolean callsPaused();
}
