// osprey's version, as reported in every window's info (key "osprey_version").
#pragma once

#define OSPREY_VERSION_MAJOR 0
#define OSPREY_VERSION_MINOR 1
#define OSPREY_VERSION_PATCH 0
#define OSPREY_VERSION_STRING "osprey 0.1.0"
