// Package termline owns a terminal's last line for a status that redraws
// itself (a job's progress) while log lines are written to the same
// terminal: the status is cut to the terminal's width, so that it never
// wraps into lines a carriage return cannot erase, and a log line clears
// it first and brings it back after, so that the two never run together.
package termline
