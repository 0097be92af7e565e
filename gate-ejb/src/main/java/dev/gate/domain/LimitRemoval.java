package dev.gate.domain;

/** What removing a limit did: removed, there was no such limit, or it still has live calls (how many). */
public record LimitRemoval(boolean removed, boolean found, long liveCalls) {
}
