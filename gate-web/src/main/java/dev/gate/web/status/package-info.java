/** The JSF status page: per limit, how much of the window is used and who waits in each class. */
package dev.gate.web.status;
