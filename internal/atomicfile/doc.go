// Package atomicfile owns how ratesim writes its output files: whole or
// not at all. Every writer of results, job lists, figures and reproducer
// files goes through it, so that an interrupted or failed run never leaves
// a half-written file where a complete one was expected.
//
// # The rules
//
//   - The bytes go to a temporary file in the target's own directory
//     (named "." + base + ".tmp-" + a random suffix, so that it is hidden
//     and recognisable), which is flushed, synced to disk (fsync), closed
//     and then renamed over the target. A reader sees the old file or the
//     new one, never a mix; after a crash at worst a hidden temporary file
//     is left behind.
//   - A new file gets the mode 0666 &^ umask, as [os.Create] gives it. A
//     file that replaces an existing one keeps that file's permission
//     bits (so that replacing a private 0600 file does not publish it),
//     again as [os.Create] would; the owner and group are those of the
//     writing process.
//   - A target that is a symbolic link is written through the link: the
//     link stays as it is and the file it points to (following every link
//     in a chain, at most 40) is replaced atomically, in that file's
//     directory. A link to a file that does not exist yet creates it.
//   - A target that exists and is not a regular file (a directory, a
//     device, a pipe) is refused with [ErrNotRegular]: replacing it would
//     not write to it.
//   - On any failure (an error from the caller's writer, a write, sync,
//     close or rename error, the caller's [File.Abort], or a cancelled
//     context) the temporary file is removed and the target, if any, is
//     left untouched.
//   - A process that must exit at once (a second interrupt, say) calls
//     [RemoveTemporary] first, which removes the temporary files of every
//     File still open, so that none is left behind.
//
// [Write] is the one-call form; [Create] with [File.Commit] and
// [File.Abort] is the streaming form for output produced over a long run.
package atomicfile
