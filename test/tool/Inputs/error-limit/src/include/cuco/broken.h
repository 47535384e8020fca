// A library header that this clang cannot compile: 25 errors, more than
// clang's default limit of 20.
int broken_0 = undeclared_0;
int broken_1 = undeclared_1;
int broken_2 = undeclared_2;
int broken_3 = undeclared_3;
int broken_4 = undeclared_4;
int broken_5 = undeclared_5;
int broken_6 = undeclared_6;
int broken_7 = undeclared_7;
int broken_8 = undeclared_8;
int broken_9 = undeclared_9;
int broken_10 = undeclared_10;
int broken_11 = undeclared_11;
int broken_12 = undeclared_12;
int broken_13 = undeclared_13;
int broken_14 = undeclared_14;
int broken_15 = undeclared_15;
int broken_16 = undeclared_16;
int broken_17 = undeclared_17;
int broken_18 = undeclared_18;
int broken_19 = undeclared_19;
int broken_20 = undeclared_20;
int broken_21 = undeclared_21;
int broken_22 = undeclared_22;
int broken_23 = undeclared_23;
int broken_24 = undeclared_24;
