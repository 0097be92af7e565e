package dev.gate.app;

import dev.gate.rules.LineSize;
import dev.gate.rules.Span;
import org.eclipse.microprofile.config.ConfigProvider;

import java.time.Duration;

/** The server's defaults that a limit declared without them gets, for the forms and pages that show them. */
public final class LineDefaults {

    /** Waiting calls a line holds unless the limit says otherwise. */
    public static final int MAX_WAITING = LineSize.DEFAULT_MAX_WAITING;

    /** Open keys a keyed limit holds unless it says otherwise. */
    public static final int MAX_KEYS = LineSize.DEFAULT_MAX_KEYS;

    /** A class whose oldest call has waited this long is marked as starving (gate.starving-after, e.g. 10m). */
    public static Duration starvingAfter() {
        return ConfigProvider.getConfig().getOptionalValue("gate.starving-after", String.class).map(Span::parse)
                .orElse(Duration.ofMinutes(10));
    }

    private LineDefaults() {
    }
}
