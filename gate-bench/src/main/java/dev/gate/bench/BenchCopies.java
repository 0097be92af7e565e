package dev.gate.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.gate.dev.GateDatabase;
import dev.gate.engine.Engine;
import dev.gate.engine.EngineSettings;
import dev.gate.engine.PoolNeeds;

import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledThreadPoolExecutor;

/** A gate copy for a benchmark, as a separate process would run it: production settings, its own pool and loop. */
final class BenchCopies {

    private BenchCopies() {
    }

    /** Starts a copy; what must close after the run (its pool and scheduler) goes into {@code resources}. */
    static Engine start(String name, GateDatabase db, List<AutoCloseable> resources) {
        EngineSettings settings = EngineSettings.defaults();
        HikariDataSource pool = db.pool(PoolNeeds.connections(settings));
        ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(4);
        Engine engine = new Engine(name, pool, name + "-pool", pool.getMaximumPoolSize(), scheduler,
                Executors.defaultThreadFactory(), settings);
        engine.start();
        resources.add(scheduler::shutdownNow);
        resources.add(pool);
        return engine;
    }
}
