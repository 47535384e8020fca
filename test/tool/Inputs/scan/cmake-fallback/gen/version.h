#pragma once
#define PROJ_VERSION 3
