import Foundation
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Waiting for something to do: the wake pipe, inotify events, and the watches that produce them.
extension CatalogEngine {
    /// Sleeps until inotify or the wake pipe has data, or the timeout passes.
    func waitForActivity(timeout: Double) {
        var fds: [pollfd] = [pollfd(fd: catalog.wakePipe.read, events: Int16(POLLIN), revents: 0)]
        #if os(Linux)
        if let inotify { fds.append(pollfd(fd: inotify.fd, events: Int16(POLLIN), revents: 0)) }
        #endif
        let ms = Int32(min(timeout * 1000, 60_000).rounded(.up))
        _ = poll(&fds, nfds_t(fds.count), ms)
        if fds[0].revents != 0 {
            var sink = [UInt8](repeating: 0, count: 256)
            while read(catalog.wakePipe.read, &sink, sink.count) > 0 {}
        }
    }

    func handleInotify() {
        #if os(Linux)
        guard let inotify else { return }
        for event in inotify.drain() {
            if event.mask & Inotify.queueOverflow != 0 {
                logger.warning("inotify queue overflowed; re-reading everything")
                needsRescan = true
                dirtyRuns.formUnion(tails.keys)
                dirtyStateDirectories.formUnion(stateDirectories.keys)
                continue
            }
            if let state = stateDirectories[event.directory] {
                handleStateDirectoryEvent(event, layout: state.layout)
            } else if let stateDirectory = stateDirectory(ofAPIDirectory: event.directory) {
                dirtyStateDirectories.insert(stateDirectory)
            } else if [RalphLayout.stateDirectoryName, RalphLayout.legacyStateDirectoryName, RalphLayout.worktreesName].contains(event.name) || event.mask & Inotify.isDirectory != 0
                || event.mask & (Inotify.deleteSelf | Inotify.moveSelf | Inotify.ignored) != 0
            {
                needsRescan = true
            } else if RalphLayout.configNames.contains(event.name) {
                let workspace = event.directory
                for (path, state) in stateDirectories where state.workspace == workspace { dirtyStateDirectories.insert(path) }
            }
        }
        #endif
    }

    #if os(Linux)
    func handleStateDirectoryEvent(_ event: Inotify.Event, layout: RunLocation.Layout) {
        if event.mask & (Inotify.deleteSelf | Inotify.moveSelf | Inotify.ignored) != 0 {
            needsRescan = true
            return
        }
        if RunDiscovery.isRunFile(event.name, layout: layout) {
            let file = event.directory + "/" + event.name
            let id = RunID.make(forPath: file, namespace: configuration.idNamespace)
            if tails[id] != nil {
                dirtyRuns.insert(id)
            } else {
                needsRescan = true
            }
            // A new run usually comes with a new current-events pointer.
            if event.mask & (Inotify.create | Inotify.movedTo | Inotify.delete | Inotify.movedFrom) != 0 {
                dirtyStateDirectories.insert(event.directory)
            }
        } else if [RalphLayout.currentEventsName, RalphLayout.loopLockName, RalphLayout.stopRequestedName, RalphLayout.suspendStateName].contains(event.name) {
            // The control files are part of the directory's liveness view: a stop pending, a hook suspension.
            dirtyStateDirectories.insert(event.directory)
        } else if event.name == RalphLayout.apiDirectoryName, layout == .ralph {
            // `.ralph/api` appeared or went: watch it (rescan), and read what it holds.
            needsRescan = true
            dirtyStateDirectories.insert(event.directory)
        }
    }
    #endif

    /// The `.ralph` directory whose `api/` is `directory` (RObot web mode's files), if it is one of ours.
    func stateDirectory(ofAPIDirectory directory: String) -> String? {
        guard directory.hasSuffix("/" + RalphLayout.apiDirectoryName) else { return nil }
        let parent = String(directory.dropLast(RalphLayout.apiDirectoryName.count + 1))
        return stateDirectories[parent]?.layout == .ralph ? parent : nil
    }

    /// Returns true when a new watch was added.
    func updateWatches(containers: [String], stateDirectories paths: [String]) -> Bool {
        #if os(Linux)
        guard let inotify else { return false }
        let apiDirectories = paths.filter { $0.hasSuffix("/" + RalphLayout.stateDirectoryName) }.map(RalphLayout.apiDirectory(stateDirectory:))
        let wanted = Set(containers).union(paths).union(apiDirectories)
        for path in inotify.watchedPaths where !wanted.contains(path) {
            inotify.unwatch(path)
        }
        let watched = inotify.watchedPaths
        let stateSet = Set(paths).union(apiDirectories)
        var added = false
        for path in wanted where !watched.contains(path) {
            let mask = stateSet.contains(path) ? Inotify.stateMask : Inotify.containerMask
            if inotify.watch(path, mask: mask) {
                added = true
            } else if FileSystem.status(path)?.isDirectory == true {
                logger.warning("cannot watch \(path) (errno \(errno)); relying on polling for it")
            }
        }
        return added
        #else
        return false
        #endif
    }
}
