/**
 * The application boundary: the use cases, as local beans, and the only way in for every adapter (the REST
 * resources, the status page, the remote {@code Gate}/{@code GateLimits} EJBs, batch jobs). {@link
 * dev.gate.app.Line}: this server's callers join, wait and report; {@link dev.gate.app.Programs}: programs over HTTP
 * submit, watch, renew and report their calls; {@link dev.gate.app.LimitAdmin}: limits and their live numbers;
 * {@link dev.gate.app.Accounts}: who may call. Validation, defaults and the mapping to the line's rules happen here,
 * once; adapters parse, call one use case and render. Views that leave ({@link dev.gate.app.CallView}) carry no
 * store types.
 */
package dev.gate.app;
