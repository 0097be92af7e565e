package dev.gate.engine;

import dev.gate.api.CallClass;
import dev.gate.domain.Grant;

import java.util.concurrent.CompletableFuture;

/** A call that has joined the line, and the future completed when it is granted (or ends without a grant). */
public record Ticket(long callId, String limit, CallClass callClass, CompletableFuture<Grant> granted) {
}
