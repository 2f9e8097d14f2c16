// Package plots owns ratesim's figures. It draws from results data (plain
// slices and tables), never from live simulation objects, and imports no
// simulation package.
package plots
