// The one progress engine: every blocking wait in osprey polls it, so messages that other
// processes sent to this one are served while it waits.
#pragma once

namespace osprey::progress {

using Poller = bool (*)();  // returns true if it did any work

// Adds a poller (transport). At most a handful are registered; never removed while running.
void add_poller(Poller p);

// Runs every poller once; returns true if any did work.
bool poll();

}  // namespace osprey::progress
