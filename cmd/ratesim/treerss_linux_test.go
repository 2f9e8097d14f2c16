//go:build linux

package main

import (
	"os"
	"strconv"
	"strings"
)

// treeRSS is the resident memory of process pid and of its children
// (/proc/PID/task/*/children, Linux), in bytes: ratesim's run is the
// child of its supervisor (crash.Supervise), whose own memory is small.
func treeRSS(pid int) int64 {
	total := rssBytes(pid)
	tasks, _ := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
	for _, task := range tasks {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/task/" + task.Name() + "/children")
		for _, c := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(c); err == nil {
				total += treeRSS(n)
			}
		}
	}
	return total
}
