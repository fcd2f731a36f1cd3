// The hints are inline functions in include/MemoryHints.h; this file gives the target a
// translation unit of its own.
#include "MemoryHints.h"
