package dev.gate.client;

/** A call's class, highest first: a higher class is granted before a lower one. */
public enum CallClass {
    INTERACTIVE, MANUAL, SCHEDULED, FOLLOW_UP, BACKFILL
}
