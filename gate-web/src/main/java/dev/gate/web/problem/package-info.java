/**
 * The RFC 9457 problem every error of the web tier is told as ({@link dev.gate.web.problem.Problem}): by the API's
 * mappers, by authentication before any resource runs, and by the container's error page.
 */
package dev.gate.web.problem;
