package dev.gate.api;

import jakarta.enterprise.context.RequestScoped;

import java.io.Serializable;

/**
 * The request's mark that a person waits for its answer: a {@link Gated} method called in a marked request waits in
 * the line as INTERACTIVE, whatever its own class says. A web layer marks it ({@code personWaiting.mark()}, e.g. in a
 * filter of the pages people use); a timer or a batch step never does.
 */
@RequestScoped
public class PersonWaiting implements Serializable {

    private static final long serialVersionUID = 1L;

    private boolean waiting;

    public void mark() {
        waiting = true;
    }

    public boolean isWaiting() {
        return waiting;
    }
}
