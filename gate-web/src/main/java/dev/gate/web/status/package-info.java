/**
 * The JSF status page: one panel per limit, busiest first (Panel): the line as bars per class with the oldest wait
 * and a starving mark, the window as a gauge, the pause and the next slot in words; it updates itself every 2 s by
 * JSF ajax and keeps the last panels, under a "calls are paused" banner, while the database is unavailable. An
 * operator's buttons (LimitActions) go through the same use cases as the HTTP API; recent actions are listed.
 */
package dev.gate.web.status;
