package dev.gate.engine;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/** What a class of the gate's logged during a test (the operators' log): registered before, removed after. */
final class LogCapture extends Handler implements BeforeEachCallback, AfterEachCallback {

    private final Logger logger;
    private final List<LogRecord> records = new CopyOnWriteArrayList<>();

    LogCapture(Class<?> source) {
        this.logger = Logger.getLogger(source.getName());
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        logger.addHandler(this);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        logger.removeHandler(this);
    }

    @Override
    public void publish(LogRecord r) {
        records.add(r);
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
    }

    /** The messages logged at {@code level} or above that contain {@code text}. */
    List<String> said(Level level, String text) {
        return records.stream().filter(r -> r.getLevel().intValue() >= level.intValue())
                .map(r -> String.valueOf(r.getMessage())).filter(m -> m.contains(text)).toList();
    }

    /** Whether a message at {@code level} or above contains {@code text}. */
    boolean saidAny(Level level, String text) {
        return !said(level, text).isEmpty();
    }
}
