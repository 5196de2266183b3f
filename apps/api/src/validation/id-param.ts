import { Injectable, Param, type PipeTransform } from '@nestjs/common';
import { Id } from '@arbor/contract';
import { parseOrThrow } from './zod';

/** A path id checked against the contract's `Id` (`400 validation_failed` at `params`). */
@Injectable()
export class ValidId implements PipeTransform<unknown, string> {
  transform(value: unknown): string {
    return parseOrThrow(Id, value, 'params');
  }
}

/**
 * `@IdParam('id')`: the route's path parameter, validated as an id before the handler runs
 * (guards and interceptors have run by then, so auth still answers first).
 */
export const IdParam = (name: string): ParameterDecorator => Param(name, ValidId);
