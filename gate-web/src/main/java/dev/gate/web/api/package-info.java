/** The HTTP API (JAX-RS, JSON-B) under {@code /gate/api/v1}: thin adapters over the EJBs. */
package dev.gate.web.api;
