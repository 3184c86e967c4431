//go:build !unix

package main

// selfUsage is unknown off Unix: zeros.
func selfUsage() usage { return usage{} }
