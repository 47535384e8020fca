#pragma once
constexpr int kPlain = 1;
